// The nested workload of the benchmarks: arrays of objects, enums, unique arrays, a named type
// used twice, a pattern and a union with null.

/// How urgent a task is.
enum Priority {
  low
  normal
  high
  urgent
}

/// Someone who works on the project.
type Person {
  /// The person's full name.
  name: string @min_length(1) @max_length(100)
  /// An email address.
  email?: string @pattern("^[^@ ]+@[^@ ]+$")
  /// What the person may do.
  role: "owner" | "editor" | "viewer"
}

/// One task of the project.
type Task {
  /// A short title.
  title: string @min_length(1) @max_length(200)
  /// How urgent the task is.
  priority?: Priority = "normal"
  /// The estimate in hours.
  estimate?: number @min(0) @max(1000)
  /// Who does it.
  assignee?: Person | null
  /// Free labels.
  tags?: string[] @max_items(10) @unique
}

/// Create a project with its members, tasks and milestones.
tool create_project {
  /// The project's name.
  name: string @min_length(1) @max_length(100)
  /// Who works on it (at least one person).
  members: Person[] @min_items(1) @max_items(50)
  /// The tasks to create.
  tasks: Task[] @max_items(200)
  /// Labels for the whole project.
  labels?: string[] @max_items(20) @unique
  /// Milestones, as day numbers from the start.
  milestones?: integer[] @unique
  /// Whether the project is visible to everyone.
  public?: boolean = false
}
