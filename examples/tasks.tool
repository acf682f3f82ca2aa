// Task tools: a recursive type (subtasks), a nullable union of several types, and literal
// values. gemini-openapi has no references, so `create_task` does not compile for it; the
// others use `$defs` (gemini needs the recursion to pass through an optional field: `subtasks`).

/// A unit of work, possibly split into subtasks.
type Task {
  /// What to do.
  title: string @min_length(1)
  /// Whether the task is done.
  done?: boolean = false
  /// Smaller steps, done in order.
  subtasks?: Task[] @max_items(20)
}

/// Who a task is for: a user id, a user name, or nobody.
type Assignee = integer @min(1) | string @pattern("^@[a-z0-9_]+$") | null

/// Create a task, with its subtasks.
@requires_approval
tool create_task -> { id: integer } {
  /// The task to create.
  task: Task
  /// Who does it; null leaves it unassigned.
  assignee: Assignee
  /// The list to add it to.
  list?: "inbox" | "today" | "someday" = "inbox"
}

/// Mark a task as done.
@idempotent
tool complete_task {
  /// The task's id.
  id: integer @exclusive_min(0)
  /// Always true: completing cannot be undone with this tool.
  confirm: true
}

/// Remove every finished task.
@destructive
tool clear_done -> integer {}
