// The medicine search as JSON, for a signed-in prescriber: GET /dashboard/medicines/search and
// /embed/medicines/search ?search=...&limit=... answer the PBS items of the current schedule and
// the custom drugs the prescriber may use that match, as the new-prescription form lists them
// (the same service call; the form itself needs no script and searches with its own button).
import { Type } from '@sinclair/typebox';
import { MEDICINE_SEARCH_MAX_LIMIT, PBS_BENEFIT_TYPE_LABELS, searchMedicines } from '../medicines/index.ts';
import type { RouteModule } from '../route-module.ts';
import { PORTAL_FRAMES } from './page-layout.ts';
import { sessionOf } from './portal-context.ts';
import type { PortalContext } from './portal-service.ts';
import { factsOfPbsItem, MEDICINES_LISTED, nameOfPbsItem } from './prescription-choices.ts';
import { medicineValueOfDrug, medicineValueOfPbsItem } from './prescription-form.ts';

const SearchQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 100 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MEDICINE_SEARCH_MAX_LIMIT })),
});

export const medicineSearchPages: RouteModule<PortalContext> = (app, portal) => {
  for (const frame of PORTAL_FRAMES) {
    app.route({
      method: 'GET',
      url: `/${frame}/medicines/search`,
      config: { auth: { kind: 'session' as const, capability: 'portal:prescribe' as const, json: true as const } },
      schema: { hide: true, querystring: SearchQuery },
      handler: async (request) => {
        const { search = '', limit = MEDICINES_LISTED } = request.query;
        const found = await searchMedicines(portal.medicines, sessionOf(request), { search, limit });
        return {
          search,
          pbs_items: found.pbsItems.map((item) => ({
            ...item,
            value: medicineValueOfPbsItem(item.pbs_code),
            label: `${nameOfPbsItem(item)}: ${factsOfPbsItem(item)}`,
            benefit_type_label: PBS_BENEFIT_TYPE_LABELS[item.benefit_type],
          })),
          custom_drugs: found.customDrugs.map((drug) => ({ ...drug, value: medicineValueOfDrug(drug.custom_drug_id) })),
          more: found.more,
        };
      },
    });
  }
};
