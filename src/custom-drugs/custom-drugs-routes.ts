// The custom drug catalog: the organization catalog (owner or admin users only) and each
// prescriber's own drugs, under /v1/organizations/{organization_id}/.
import type { App, AppDeps, RouteModule } from '../app-deps.ts';
import { errorResponses } from '../platform/envelope.ts';
import { principalOf } from '../platform/route-auth.ts';
import type { Role } from '../users/user-roles.ts';
import { acceptNumbersOnCreate, readBulkItems, readCustomDrugInput, readCustomDrugPatch } from './custom-drugs-input.ts';
import {
  BULK_BODY_LIMIT_BYTES,
  BulkCreateResponse,
  BulkCreateSchema,
  CatalogDeletedResponse,
  CatalogDeleteQuery,
  CatalogQuery,
  CustomDrugCreateSchema,
  CustomDrugListResponse,
  CustomDrugResponse,
  CustomDrugUpdateSchema,
  DeletedResponse,
  LeveledCustomDrugListResponse,
  OrganizationDrugParams,
  OrganizationParams,
  UserDrugParams,
  UserParams,
} from './custom-drugs-schemas.ts';
import {
  createCustomDrug,
  createOrganizationCustomDrugs,
  deleteCustomDrug,
  deleteOrganizationCatalog,
  listCustomDrugs,
  listDrugsVisibleToUser,
  organizationCatalogOf,
  updateCustomDrug,
  userDrugsOf,
  type CustomDrugContext,
} from './custom-drugs-service.ts';
import { createLiveDrugUpdater } from './custom-drugs-store.ts';

/** The spec: the organization catalog is managed by owner or admin users (else 401). */
const CATALOG_MANAGERS: Role[] = ['owner', 'admin'];
const CATALOG = '/v1/organizations/:organization_id/custom-drugs';
const USER_DRUGS = '/v1/organizations/:organization_id/users/:user_id/custom-drugs';
const tags = ['custom drugs'];

type RouteRegistration = (app: App, ctx: CustomDrugContext, deps: AppDeps) => void;

const createCatalogDrugs: RouteRegistration = (app, ctx, deps) => {
  app.route({
    method: 'POST',
    url: CATALOG,
    config: { auth: { scopes: ['create:custom_drug'], roles: CATALOG_MANAGERS } },
    bodyLimit: Math.max(deps.config.bodyLimitBytes, BULK_BODY_LIMIT_BYTES),
    attachValidation: true,
    schema: {
      summary: 'Bulk-create organization catalog drugs (each item succeeds or fails on its own)',
      tags,
      params: OrganizationParams,
      body: BulkCreateSchema,
      response: { 200: BulkCreateResponse, ...errorResponses(422) },
    },
    preValidation: acceptNumbersOnCreate,
    handler: async (request, reply) => {
      const result = await createOrganizationCustomDrugs(ctx, principalOf(request), readBulkItems(request));
      return reply.success(200, `Created ${result.successCount} of ${result.total} custom drugs successfully`, result);
    },
  });
};

const listCatalog: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'GET',
    url: CATALOG,
    config: { auth: { scopes: ['read:custom_drug'], roles: CATALOG_MANAGERS } },
    schema: {
      summary: 'List the organization catalog, optionally by custom_product_id (exact match)',
      tags,
      params: OrganizationParams,
      querystring: CatalogQuery,
      response: { 200: CustomDrugListResponse, ...errorResponses(422) },
    },
    handler: async (request, reply) => {
      const drugs = await listCustomDrugs(ctx, organizationCatalogOf(principalOf(request)), request.query.custom_product_id);
      return reply.success(200, `Retrieved ${drugs.length} custom drugs successfully`, drugs);
    },
  });
};

const deleteCatalog: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'DELETE',
    url: CATALOG,
    config: { auth: { scopes: ['delete:custom_drug'], roles: CATALOG_MANAGERS } },
    schema: {
      summary: 'Delete the whole organization catalog (requires confirm=true; user-level drugs stay)',
      tags,
      params: OrganizationParams,
      querystring: CatalogDeleteQuery,
      response: { 200: CatalogDeletedResponse, ...errorResponses(422) },
    },
    handler: async (request, reply) => {
      const data = await deleteOrganizationCatalog(ctx, principalOf(request), request.query.confirm);
      return reply.success(200, `Deleted ${data.deleted_count} organization custom drugs`, data);
    },
  });
};

const updateCatalogDrug: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'PUT',
    url: `${CATALOG}/:custom_drug_id`,
    config: { auth: { scopes: ['update:custom_drug'], roles: CATALOG_MANAGERS } },
    attachValidation: true,
    schema: {
      summary: 'Update an organization catalog drug (only the supplied fields change)',
      tags,
      params: OrganizationDrugParams,
      body: CustomDrugUpdateSchema,
      response: { 200: CustomDrugResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const patch = readCustomDrugPatch(request);
      const drug = await updateCustomDrug(ctx, principal.userId, organizationCatalogOf(principal), request.params.custom_drug_id, patch);
      return reply.success(200, 'Custom drug updated successfully', drug);
    },
  });
};

const deleteCatalogDrug: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'DELETE',
    url: `${CATALOG}/:custom_drug_id`,
    config: { auth: { scopes: ['delete:custom_drug'], roles: CATALOG_MANAGERS } },
    schema: {
      summary: 'Delete an organization catalog drug (idempotent)',
      tags,
      params: OrganizationDrugParams,
      response: { 200: DeletedResponse, ...errorResponses(422) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      await deleteCustomDrug(ctx, principal.userId, organizationCatalogOf(principal), request.params.custom_drug_id);
      return reply.success(200, 'Custom drug deleted successfully', null);
    },
  });
};

const createUserDrug: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'POST',
    url: USER_DRUGS,
    config: { auth: { scopes: ['create:custom_drug'] } },
    attachValidation: true,
    schema: {
      summary: "Create a drug of the user's own",
      tags,
      params: UserParams,
      body: CustomDrugCreateSchema,
      response: { 201: CustomDrugResponse, ...errorResponses(404, 422) },
    },
    preValidation: acceptNumbersOnCreate,
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const input = readCustomDrugInput(request);
      const drug = await createCustomDrug(ctx, principal.userId, await userDrugsOf(ctx, principal, request.params.user_id), input);
      return reply.success(201, 'Custom drug created successfully', drug);
    },
  });
};

const listUserDrugs: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'GET',
    url: USER_DRUGS,
    config: { auth: { scopes: ['read:custom_drug'] } },
    schema: {
      summary: "List the drugs a user can prescribe: the organization catalog and the user's own, each with its level",
      tags,
      params: UserParams,
      response: { 200: LeveledCustomDrugListResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const drugs = await listDrugsVisibleToUser(ctx, await userDrugsOf(ctx, principalOf(request), request.params.user_id));
      return reply.success(200, `Retrieved ${drugs.length} custom drugs successfully`, drugs);
    },
  });
};

const updateUserDrug: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'PUT',
    url: `${USER_DRUGS}/:custom_drug_id`,
    config: { auth: { scopes: ['update:custom_drug'] } },
    attachValidation: true,
    schema: {
      summary: "Update a drug of the user's own (only the supplied fields change)",
      tags,
      params: UserDrugParams,
      body: CustomDrugUpdateSchema,
      response: { 200: CustomDrugResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const patch = readCustomDrugPatch(request);
      const owner = await userDrugsOf(ctx, principal, request.params.user_id);
      const drug = await updateCustomDrug(ctx, principal.userId, owner, request.params.custom_drug_id, patch);
      return reply.success(200, 'Custom drug updated successfully', drug);
    },
  });
};

const deleteUserDrug: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'DELETE',
    url: `${USER_DRUGS}/:custom_drug_id`,
    config: { auth: { scopes: ['delete:custom_drug'] } },
    schema: {
      summary: "Delete a drug of the user's own (idempotent)",
      tags,
      params: UserDrugParams,
      response: { 200: DeletedResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      await deleteCustomDrug(ctx, principal.userId, await userDrugsOf(ctx, principal, request.params.user_id), request.params.custom_drug_id);
      return reply.success(200, 'Custom drug deleted successfully', null);
    },
  });
};

export const customDrugRoutes: RouteModule = (app, deps) => {
  const ctx: CustomDrugContext = { db: deps.database.db, clock: deps.clock, updateLiveDrug: createLiveDrugUpdater(deps.database.db) };
  const routes = [
    // The organization catalog
    createCatalogDrugs,
    listCatalog,
    deleteCatalog,
    updateCatalogDrug,
    deleteCatalogDrug,
    // A user's own drugs
    createUserDrug,
    listUserDrugs,
    updateUserDrug,
    deleteUserDrug,
  ];
  for (const register of routes) register(app, ctx, deps);
};
