// The stored shape of a contact, shared by the contacts repository and the segment engine.

/** One custom field value on a contact: the spec's `{field_name, field_value}`. */
export interface CustomFieldValue {
  field_name: string;
  field_value: string | null;
}

export type SubscriptionStatus = 'confirmed' | 'pending';

export interface ContactRecord {
  id: number;
  user_id: number;
  contact_type_id: number;
  first_name: string;
  last_name: string;
  /** As entered; uniqueness within a contact type is on its lower-cased form. */
  email: string;
  alt_email: string | null;
  /** The country id as text (the details output shows it so; the list shows the country name). */
  country: string;
  state: string;
  city: string;
  address_line1: string;
  address_line2: string;
  state_province_region: string;
  postal_code: string;
  /** Keyed by custom field name; null when the contact has none. */
  custom_field: Record<string, CustomFieldValue> | null;
  /**
   * `pending` from its creation in a double opt-in type until it presses the button of its
   * confirmation mail; nothing else mails it meanwhile. A contact stored without it is confirmed.
   */
  subscription_status: SubscriptionStatus;
  /** When it pressed the confirmation button; null for a contact that never had to. */
  confirmed_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}
