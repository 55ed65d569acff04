// Row types of every table, as Kysely sees them. Ids are UUID text, times ISO-8601 text,
// flags 0/1 integers and lists JSON text, so one schema reads the same on SQLite and PostgreSQL.
import type { Generated } from 'kysely';

export interface PartnersTable {
  id: string;
  name: string;
  secret_hash: string;
  webhook_url: string | null;
  webhook_secret_encrypted: string | null;
  created_at: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  hpio: string | null;
  allowed_scopes: string;
  secret_hash: string;
  created_at: string;
}

export interface OrganizationPartnersTable {
  organization_id: string;
  partner_id: string;
  enabled_at: string;
  validated_at: string | null;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  given_name: string;
  family_name: string;
  full_name: string;
  roles: string;
  enabled: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface Database {
  partners: PartnersTable;
  organizations: OrganizationsTable;
  organization_partners: OrganizationPartnersTable;
  users: UsersTable;
}
