// What refuses a contact write: its email taken in its type, or its type gone or closing.

/** The email is already used by another contact of the same type (compared without case). */
export class ContactEmailTaken extends Error {
  constructor() {
    super('contact email taken');
    this.name = 'ContactEmailTaken';
  }
}

/** The contact type does not exist (or is being deleted), so no contact can join it. */
export class ContactTypeUnavailable extends Error {
  constructor(readonly contactTypeId: number) {
    super(`contact type ${contactTypeId} unavailable`);
    this.name = 'ContactTypeUnavailable';
  }
}
