// The users of an organization and their prescriber details, under
// /v1/organizations/{organization_id}/users: create, list, read, update, roles, disable, enable.
import type { App, RouteModule } from '../route-module.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import { principalOf } from '../auth/index.ts';
import { textField, type IdempotentCreate } from '../idempotency/index.ts';
import { submittedBody } from '../platform/http/body-validation.ts';
import { updateUser } from './provider-update.ts';
import { changeUserState, replaceRoles } from './user-access.ts';
import { createOrganizationUser } from './user-creation.ts';
import {
  CreatedUserResponse,
  CreateUserBody,
  OrganizationParams,
  RolesBody,
  RolesResponse,
  UpdateUserBody,
  UserIdResponse,
  UserListResponse,
  UserParams,
  UserResponse,
} from './users-schemas.ts';
import { listUsers, readUser, type UsersContext } from './users-service.ts';

const USERS = '/v1/organizations/:organization_id/users';
const USER = `${USERS}/:user_id`;
const tags = ['users'];

type RouteRegistration = (app: App, ctx: UsersContext) => void;

/** A create retried with its Idempotency-Key is recorded against the user it made. */
const USER_CREATE: IdempotentCreate = { resourceOf: (data) => ({ targetUserId: textField(data, 'user_id') }) };

const createUserRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'POST',
    url: USERS,
    config: { auth: { kind: 'bearer', scopes: ['create:user'], capability: 'manage_users', roleFailure: 403 }, idempotent: USER_CREATE },
    attachValidation: true,
    schema: {
      summary: 'Create a user; a provider is verified with the HI Service (read the code: USER_CREATED or USER_CREATED_PROVIDER_*)',
      tags,
      params: OrganizationParams,
      body: CreateUserBody,
      response: { 201: CreatedUserResponse, ...errorResponses(403, 409, 422) },
    },
    handler: async (request, reply) => {
      const created = await createOrganizationUser(ctx, principalOf(request), submittedBody(request));
      return reply.success(201, 'User created successfully', created.data, created.code);
    },
  });
};

const listUsersRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'GET',
    url: USERS,
    config: { auth: { kind: 'bearer', scopes: ['read:users'] } },
    schema: {
      summary: 'List every user of the organization (user_id and email; no pagination, limit and lastKey are ignored)',
      tags,
      params: OrganizationParams,
      response: { 200: UserListResponse, ...errorResponses() },
    },
    handler: async (request, reply) => {
      const users = await listUsers(ctx, principalOf(request).organizationId);
      return reply.success(200, `Retrieved ${users.length} users successfully`, users);
    },
  });
};

const readUserRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'GET',
    url: USER,
    config: { auth: { kind: 'bearer', scopes: ['read:user'] } },
    schema: {
      summary: 'Read a user, with provider details and is_escript_ready.can_prescribe',
      tags,
      params: UserParams,
      response: { 200: UserResponse, ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const user = await readUser(ctx, principalOf(request), request.params.user_id);
      return reply.success(200, 'User details retrieved successfully', user);
    },
  });
};

const updateUserRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'PUT',
    url: USER,
    config: { auth: { kind: 'bearer', scopes: ['update:user'], capability: 'update_user_details', orSelf: true, roleFailure: 403 } },
    attachValidation: true,
    schema: {
      summary: 'Update full_name and provider details (only the fields sent); the HPI-I is verified with the HI Service when needed',
      tags,
      params: UserParams,
      body: UpdateUserBody,
      response: { 200: UserIdResponse, ...errorResponses(403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const updated = await updateUser(ctx, principalOf(request), request.params.user_id, submittedBody(request));
      return reply.success(200, 'User updated successfully', updated);
    },
  });
};

const replaceRolesRoute: RouteRegistration = (app, ctx) => {
  app.route({
    method: 'PUT',
    url: `${USER}/roles`,
    config: { auth: { kind: 'bearer', scopes: ['update:user'], capability: 'manage_users', roleFailure: 403 } },
    attachValidation: true,
    schema: {
      summary: 'Replace the roles of a user (owner, support and member cannot be assigned)',
      tags,
      params: UserParams,
      body: RolesBody,
      response: { 200: RolesResponse, ...errorResponses(403, 404) },
    },
    handler: async (request, reply) => {
      const roles = await replaceRoles(ctx, principalOf(request), request.params.user_id, submittedBody(request));
      return reply.success(200, 'User roles updated successfully', roles);
    },
  });
};

const userStateRoute = (change: 'disable' | 'enable', scopes: Array<'update:user' | 'delete:user'>): RouteRegistration => (app, ctx) => {
  app.route({
    method: 'PUT',
    url: `${USER}/${change}`,
    config: { auth: { kind: 'bearer', scopes, capability: 'manage_users', roleFailure: 403 } },
    schema: {
      summary:
        change === 'disable'
          ? "Disable a user: roles become member (owner and support kept) and the user's sign-in (and every token) stops working (idempotent); not oneself, not the last enabled owner"
          : 'Enable a disabled user: sign-in restored with role member (owner and support kept) (idempotent)',
      tags,
      params: UserParams,
      response: { 200: UserIdResponse, ...errorResponses(403, 404, 409) },
    },
    handler: async (request, reply) => {
      const result = await changeUserState(ctx, principalOf(request), request.params.user_id, change);
      return reply.success(200, result.message, { user_id: result.user_id });
    },
  });
};

export const userRoutes: RouteModule<UsersContext> = (app, users) => {
  const routes = [
    createUserRoute,
    listUsersRoute,
    readUserRoute,
    updateUserRoute,
    replaceRolesRoute,
    userStateRoute('disable', ['update:user', 'delete:user']),
    userStateRoute('enable', ['update:user']),
  ];
  for (const register of routes) register(app, users);
};
