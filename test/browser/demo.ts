/** The demo search app `npm run dev` seeds, which the browser tests open. */
export const DEMO_TENANT = 'demo';
export const DEMO_APP = 'catalog';
