/** The demo search app `npm run dev` seeds, which the browser tests open. */
export const DEMO_TENANT = 'demo';
export const DEMO_APP = 'catalog';
/** Lines of test/fixtures/debian-sample.ndjson, which `seedDemo` feeds. */
export const DEMO_DOCUMENTS = 3237;
