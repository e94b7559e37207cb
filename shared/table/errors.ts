// Domain errors raised by repositories; the HTTP layer maps them to the operation's response.

/** The record does not exist in this account (or belongs to another, which is the same to the caller). */
export class RecordNotFound extends Error {
  constructor(readonly entity: string, readonly id: number | string) {
    super(`${entity} ${id} not found`);
    this.name = 'RecordNotFound';
  }
}
