// The custom drug catalog: the organization catalog (owner or admin users only) and each
// prescriber's own drugs, under /v1/organizations/{organization_id}/.
import type { App, RouteModule } from '../route-module.ts';
import type { Config } from '../config.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import { principalOf, type Role } from '../auth/index.ts';
import { textField, type IdempotentCreate } from '../idempotency/index.ts';
import { submittedBody } from '../platform/http/body-validation.ts';
import { acceptNumbersOnCreate } from './custom-drugs-input.ts';
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
  createOrganizationCustomDrugs,
  createUserCustomDrug,
  deleteCatalogDrug,
  deleteOrganizationCatalog,
  deleteUserDrug,
  listCatalogDrugs,
  listDrugsVisibleToUser,
  updateCatalogDrug,
  updateUserDrug,
  type CustomDrugsContext,
} from './custom-drugs-service.ts';

/** The spec: the organization catalog is managed by owner or admin users (else 401). */
const CATALOG = '/v1/organizations/:organization_id/custom-drugs';
const USER_DRUGS = '/v1/organizations/:organization_id/users/:user_id/custom-drugs';
const tags = ['custom drugs'];

type RouteRegistration = (app: App, ctx: CustomDrugsContext, config: Config) => void;

/** A bulk create makes many drugs and names none: its replay is recorded with the route alone. */
const CATALOG_CREATE: IdempotentCreate = { resourceOf: () => ({}) };
/** A create retried with its Idempotency-Key is recorded against the drug it made. */
const USER_DRUG_CREATE: IdempotentCreate = { resourceOf: (data) => ({ subjectId: textField(data, 'custom_drug_id') }) };

const createCatalogDrugsRoute: RouteRegistration = (app, ctx, config) => {
  app.route({
    method: 'POST',
    url: CATALOG,
    config: { auth: { kind: 'bearer', scopes: ['create:custom_drug'], capability: 'manage_organization_drugs' }, idempotent: CATALOG_CREATE },
    bodyLimit: Math.max(config.bodyLimitBytes, BULK_BODY_LIMIT_BYTES),
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
      const result = await createOrganizationCustomDrugs(ctx, principalOf(request), submittedBody(request));
      return reply.success(200, `Created ${result.successCount} of ${result.total} custom drugs successfully`, result);
    },
  });
};

const listCatalogRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'GET',
    url: CATALOG,
    config: { auth: { kind: 'bearer', scopes: ['read:custom_drug'], capability: 'manage_organization_drugs' } },
    schema: {
      summary: 'List the organization catalog, optionally by custom_product_id (exact match)',
      tags,
      params: OrganizationParams,
      querystring: CatalogQuery,
      response: { 200: CustomDrugListResponse, ...errorResponses(422) },
    },
    handler: async (request, reply) => {
      const drugs = await listCatalogDrugs(ctx, principalOf(request), request.query.custom_product_id);
      return reply.success(200, `Retrieved ${drugs.length} custom drugs successfully`, drugs);
    },
  });
};

const deleteCatalogRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'DELETE',
    url: CATALOG,
    config: { auth: { kind: 'bearer', scopes: ['delete:custom_drug'], capability: 'manage_organization_drugs' } },
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

const updateCatalogDrugRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'PUT',
    url: `${CATALOG}/:custom_drug_id`,
    config: { auth: { kind: 'bearer', scopes: ['update:custom_drug'], capability: 'manage_organization_drugs' } },
    attachValidation: true,
    schema: {
      summary: 'Update an organization catalog drug (only the supplied fields change)',
      tags,
      params: OrganizationDrugParams,
      body: CustomDrugUpdateSchema,
      response: { 200: CustomDrugResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const drug = await updateCatalogDrug(ctx, principalOf(request), request.params.custom_drug_id, submittedBody(request));
      return reply.success(200, 'Custom drug updated successfully', drug);
    },
  });
};

const deleteCatalogDrugRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'DELETE',
    url: `${CATALOG}/:custom_drug_id`,
    config: { auth: { kind: 'bearer', scopes: ['delete:custom_drug'], capability: 'manage_organization_drugs' } },
    schema: {
      summary: 'Delete an organization catalog drug (idempotent)',
      tags,
      params: OrganizationDrugParams,
      response: { 200: DeletedResponse, ...errorResponses(422) },
    },
    handler: async (request, reply) => {
      const deleted = await deleteCatalogDrug(ctx, principalOf(request), request.params.custom_drug_id);
      return reply.success(200, 'Custom drug deleted successfully', deleted);
    },
  });
};

const createUserDrugRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'POST',
    url: USER_DRUGS,
    config: { auth: { kind: 'bearer', scopes: ['create:custom_drug'] }, idempotent: USER_DRUG_CREATE },
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
      const drug = await createUserCustomDrug(ctx, principalOf(request), request.params.user_id, submittedBody(request));
      return reply.success(201, 'Custom drug created successfully', drug);
    },
  });
};

const listUserDrugsRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'GET',
    url: USER_DRUGS,
    config: { auth: { kind: 'bearer', scopes: ['read:custom_drug'] } },
    schema: {
      summary: "List the drugs a user can prescribe: the organization catalog and the user's own, each with its level",
      tags,
      params: UserParams,
      response: { 200: LeveledCustomDrugListResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const drugs = await listDrugsVisibleToUser(ctx, principalOf(request), request.params.user_id);
      return reply.success(200, `Retrieved ${drugs.length} custom drugs successfully`, drugs);
    },
  });
};

const updateUserDrugRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'PUT',
    url: `${USER_DRUGS}/:custom_drug_id`,
    config: { auth: { kind: 'bearer', scopes: ['update:custom_drug'] } },
    attachValidation: true,
    schema: {
      summary: "Update a drug of the user's own (only the supplied fields change)",
      tags,
      params: UserDrugParams,
      body: CustomDrugUpdateSchema,
      response: { 200: CustomDrugResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, custom_drug_id: drugId } = request.params;
      const drug = await updateUserDrug(ctx, principalOf(request), userId, drugId, submittedBody(request));
      return reply.success(200, 'Custom drug updated successfully', drug);
    },
  });
};

const deleteUserDrugRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'DELETE',
    url: `${USER_DRUGS}/:custom_drug_id`,
    config: { auth: { kind: 'bearer', scopes: ['delete:custom_drug'] } },
    schema: {
      summary: "Delete a drug of the user's own (idempotent)",
      tags,
      params: UserDrugParams,
      response: { 200: DeletedResponse, ...errorResponses(404, 422) },
    },
    handler: async (request, reply) => {
      const deleted = await deleteUserDrug(ctx, principalOf(request), request.params.user_id, request.params.custom_drug_id);
      return reply.success(200, 'Custom drug deleted successfully', deleted);
    },
  });
};

export const customDrugRoutes: RouteModule<{ customDrugs: CustomDrugsContext; config: Config }> = (app, { customDrugs, config }) => {
  const routes = [
    // The organization catalog
    createCatalogDrugsRoute,
    listCatalogRoute,
    deleteCatalogRoute,
    updateCatalogDrugRoute,
    deleteCatalogDrugRoute,
    // A user's own drugs
    createUserDrugRoute,
    listUserDrugsRoute,
    updateUserDrugRoute,
    deleteUserDrugRoute,
  ];
  for (const register of routes) register(app, customDrugs, config);
};
