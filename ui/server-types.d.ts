// The page reads types from server modules (the typed client's contract, the page configuration); those
// mention a few Workers types the browser's type library does not have. Only their names are needed here.
type Message<Body> = { readonly id: string; readonly body: Body; ack(): void };
type D1Database = object;
