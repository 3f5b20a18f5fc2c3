// The page reads types from server modules (the adapter's transport, the page configuration); one of those
// mentions the Workers queue message, which the browser's type library does not have.
type Message<Body> = { readonly id: string; readonly body: Body; ack(): void };
