/**
 * Typed errors. Every failure a user or agent can cause has a class here with
 * a stable `code` (part of the --json contract), structured `data`, a message
 * that says what to do next, and the process exit code from the design:
 *   0 ok, 1 error, 2 usage, 3 not found, 4 conflict, 5 invalid, 6 not permitted.
 * Anything that is not a TasksError reaching the top level is an internal bug.
 */

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  invalid: 5,
  notPermitted: 6,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** Base class of every error the user can act on. */
export class TasksError extends Error {
  readonly code: string
  readonly exitCode: ExitCode
  readonly data: Record<string, unknown>

  constructor(code: string, exitCode: ExitCode, message: string, data: Record<string, unknown> = {}) {
    super(message)
    this.name = new.target.name
    this.code = code
    this.exitCode = exitCode
    this.data = data
  }

  /** The `{"error": …}` object printed on stderr under --json. */
  toJSON(): {error: Record<string, unknown>} {
    return {error: {code: this.code, message: this.message, exit: this.exitCode, ...this.data}}
  }
}

/** Malformed invocation: bad flag value, malformed id, missing argument. Exit 2. */
export class UsageError extends TasksError {
  constructor(message: string, data: Record<string, unknown> = {}, code = 'usage') {
    super(code, EXIT.usage, message, data)
  }
}

/** An id, list or repository that does not exist. Exit 3. */
export class NotFoundError extends TasksError {
  constructor(code: string, message: string, data: Record<string, unknown> = {}) {
    super(code, EXIT.notFound, message, data)
  }
}

/** A precondition that the current state does not meet: already claimed, wrong status, lost CAS. Exit 4. */
export class ConflictError extends TasksError {
  constructor(code: string, message: string, data: Record<string, unknown> = {}) {
    super(code, EXIT.conflict, message, data)
  }
}

/** Input that breaks a rule of the model: schema, cycle, limit. Exit 5. */
export class InvalidError extends TasksError {
  constructor(code: string, message: string, data: Record<string, unknown> = {}) {
    super(code, EXIT.invalid, message, data)
  }
}

/** The actor may not do this (not the owner, not an admin). Exit 6. */
export class NotPermittedError extends TasksError {
  constructor(code: string, message: string, data: Record<string, unknown> = {}) {
    super(code, EXIT.notPermitted, message, data)
  }
}

/** Environment problems: not a git repository, list not initialised, git failed. Exit 1. */
export class EnvironmentError extends TasksError {
  constructor(code: string, message: string, data: Record<string, unknown> = {}) {
    super(code, EXIT.error, message, data)
  }
}
