// A larger, realistic file: the tools of an issue tracker, as an MCP server would expose them.
// It uses named types and aliases, enums with documented string and integer values, nested
// objects, arrays of objects, maps, nullable fields, defaults, examples, string formats and
// patterns, a recursive type (a comment tree), `-> Output` types, tool policies and a tool
// without parameters.

// ---------------------------------------------------------------------------------------------
// Shared types

/// An issue key: the project key, a dash and the issue number, e.g. `CORE-42`.
type IssueKey = string @pattern("^[A-Z][A-Z0-9]{1,9}-[1-9][0-9]*$")

/// A user's login name.
type Login = string @min_length(2) @max_length(39) @pattern("^[a-z0-9][a-z0-9-]*$")

/// Where an issue is in its life cycle.
enum Status {
  /// Reported, nobody works on it yet.
  open
  /// Someone is working on it.
  in_progress
  /// Waiting for something outside the team.
  blocked
  /// Done or rejected.
  closed
}

/// How urgent an issue is, from 0 (drop everything) to 4 (some day).
enum Priority {
  /// Drop everything.
  0
  /// Next in line.
  1
  /// Normal.
  2
  /// When there is time.
  3
  /// Some day.
  4
}

/// Why an issue was closed.
enum Resolution {
  fixed
  duplicate
  "won't fix"
  "cannot reproduce"
}

/// A person using the tracker.
type User {
  login: Login
  /// The name shown in the interface.
  display_name: string
  email?: string @format(email)
}

/// A comment and its replies: a tree of any depth.
type Comment {
  id: string @format(uuid)
  author: User
  /// Markdown text.
  body: string @min_length(1) @max_length(65536)
  created_at: string @format(date-time)
  /// Set when the comment was edited.
  edited_at?: string @format(date-time) | null
  /// Answers to this comment, oldest first.
  replies: Comment[]
}

/// A file attached to an issue.
type Attachment {
  file_name: string @max_length(255)
  /// MIME type, e.g. `image/png`.
  media_type: string @pattern("^[a-z]+/[a-z0-9.+-]+$")
  size_bytes: integer @min(0)
  url: string @format(uri)
}

/// An issue as the tracker stores it.
type Issue {
  key: IssueKey
  title: string
  /// Markdown text.
  description: string
  status: Status
  priority: Priority
  /// Who reported it.
  reporter: User
  /// Who works on it; `null` when nobody does.
  assignee: User | null
  labels: string[] @unique
  /// The day it is due, if any.
  due: string @format(date) | null
  /// Set once the issue is closed.
  resolution?: Resolution
  /// Values of the project's custom fields, by field name.
  custom_fields: map<string | number | boolean | null>
  attachments: Attachment[]
  /// The comment threads, oldest first.
  comments: Comment[]
  /// Time logged, in hours, per login.
  time_spent: map<number @min(0)>
  created_at: string @format(date-time)
  updated_at: string @format(date-time)
}

/// A page of search results.
type IssuePage {
  issues: {
    key: IssueKey
    title: string
    status: Status
    priority: Priority
    assignee: Login | null
  }[]
  /// Pass it as `cursor` to get the next page; `null` on the last page.
  next_cursor: string | null
  /// How many issues match, over all pages.
  total: integer @min(0)
}

// ---------------------------------------------------------------------------------------------
// Tools

/// Check that the tracker is reachable. Call it before anything else when a call failed with a
/// network error.
@read_only @idempotent @open_world(false)
tool ping {}

/// Create an issue and return it.
@title("Create issue") @retry(times: 2, wait: linear, base: 0.5)
tool create_issue -> Issue {
  /// The project's key, e.g. `CORE`.
  project: string @pattern("^[A-Z][A-Z0-9]{1,9}$") @example("CORE")
  /// A one-line summary.
  title: string @min_length(3) @max_length(200) @example("Login fails with SSO enabled")
  /// Markdown text: what happens, what should happen, how to reproduce.
  description?: string @max_length(65536) = ""
  /// How urgent the issue is (0 is the most urgent).
  priority?: Priority = 2
  /// Who should work on it; leave it out to keep the issue unassigned.
  assignee?: Login
  /// Labels to put on the issue.
  labels?: (string @min_length(1) @max_length(50))[] @max_items(20) @unique = []
  /// The day the work is due.
  due?: string @format(date) @example("2026-12-31")
  /// Values for the project's custom fields, by field name.
  custom_fields?: map<string | number | boolean> @example({ "component": "auth", "story_points": 3 })
}

/// Return one issue with its comments and attachments.
@read_only @idempotent
tool get_issue -> Issue {
  /// The issue key, e.g. `CORE-42`.
  key: IssueKey @example("CORE-42")
  /// Leave the comment threads out, which makes the answer much shorter.
  without_comments?: boolean = false
}

/// Search issues. Results are sorted and paged; pass `next_cursor` back as `cursor` to go on.
@read_only @idempotent
tool search_issues -> IssuePage {
  /// Words to look for in titles and descriptions.
  text?: string @max_length(500)
  /// Only issues in one of these states.
  status?: Status[] @min_items(1) @unique
  /// Only issues at least this urgent (0 is the most urgent).
  max_priority?: Priority
  /// Only issues assigned to this login; `null` for unassigned issues.
  assignee?: Login | null
  /// Only issues that carry all these labels.
  labels?: string[] @unique
  /// Only issues created in this period.
  created?: {
    after?: string @format(date-time)
    before?: string @format(date-time)
  }
  /// Sort order.
  sort?: {
    by: "created" | "updated" | "priority" | "due"
    descending?: boolean = true
  } = { by: "updated" }
  /// Results per page.
  limit?: integer @min(1) @max(100) = 25
  /// The `next_cursor` of the page before; leave it out for the first page.
  cursor?: string
}

/// Change fields of an issue. Fields left out keep their value.
@idempotent
tool update_issue -> Issue {
  /// The issue key, e.g. `CORE-42`.
  key: IssueKey
  /// A new one-line summary.
  title?: string @min_length(3) @max_length(200)
  /// New Markdown text of the issue.
  description?: string @max_length(65536)
  /// The new state.
  status?: Status
  /// Required when `status` is `closed`.
  resolution?: Resolution
  /// The new urgency (0 is the most urgent).
  priority?: Priority
  /// A login, or `null` to unassign the issue.
  assignee?: Login | null
  /// A day, or `null` to clear the due date.
  due?: string @format(date) | null
  /// Labels to add and to remove.
  labels?: { add?: string[] @unique, remove?: string[] @unique }
  /// The estimate in hours, in steps of a quarter hour.
  estimate_hours?: number @exclusive_min(0) @max(1000) @multiple_of(0.25)
  /// The version you changed, from the issue's `updated_at`; the update fails when the issue
  /// changed since.
  if_unmodified_since?: string @format(date-time)
  /// The old way to set the assignee; use `assignee`.
  owner?: Login @deprecated
}

/// Comment on an issue, or reply to a comment.
tool add_comment -> Comment {
  /// The issue key, e.g. `CORE-42`.
  key: IssueKey
  /// Markdown text.
  body: string @min_length(1) @max_length(65536)
  /// The comment to reply to; leave it out to start a new thread.
  reply_to?: string @format(uuid)
}

/// Return one comment thread, with all replies.
@read_only @idempotent
tool get_thread -> Comment {
  /// The id of the first comment of the thread.
  comment_id: string @format(uuid)
}

/// Set or replace labels on many issues at once.
@idempotent
tool bulk_label {
  /// For each issue key, its complete new set of labels.
  labels: map<string[] @max_items(20)> @example({ "CORE-1": ["bug"], "CORE-2": [] })
}

/// Delete an issue with its comments and attachments. This cannot be undone; prefer closing
/// an issue with `update_issue`.
@destructive @requires_approval @scope(admin) @on_error(raise) @strict @meta(audit: true, since: "2.1")
tool delete_issue {
  /// The issue key, e.g. `CORE-42`.
  key: IssueKey
  /// Type the issue key again to confirm.
  confirm: string
}
