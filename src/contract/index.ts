/**
 * The HTTP contract as zod schemas, free of any framework: the routes validate requests with them, the OpenAPI
 * document is generated from them, and `packages/client` derives its types from them (one source of truth).
 * Schemas that belong to a capability (the field schema, the search app body) stay beside it and are re-exported.
 */
import type { agentConfigInput, agentView } from '../agent/config';
import type { ChatAnswer, chatRequestSchema } from '../agent/chat';
import type { emailConfigInput, emailConfigView } from '../email/configs';
import type { listDeliveries } from '../email/deliveries';
import type { sendRequestSchema } from '../email/send';
import type { z } from 'zod';

export * from './admin';
export * from './feeding';
export * from './search';
export { searchAppSchemaInput, type SearchAppSchema } from '../search/field-schema';
export type { ErrorBody, ErrorDetail } from '../errors';

// Agent and email configurations and their calls: the schemas live with their capabilities; the client takes
// their types from here.
export type { ChatAnswer };
/** Body of `PUT /api/v1/admin/agents/{tenant}/{code}`. */
export type AgentConfigBody = z.input<typeof agentConfigInput>;
/** An agent configuration as answered (its OpenAI key as `***`). */
export type AgentConfig = ReturnType<typeof agentView>;
/** Body of `POST /api/v1/agent/chat[/streaming]/{tenant}/{code}`. */
export type ChatBody = z.input<typeof chatRequestSchema>;
/** One line of the streamed chat: deltas with `streaming: true`, then the final answer with `streaming: false`. */
export type ChatStreamLine = { data: string; streaming: true } | (ChatAnswer & { streaming: false });
/** Body of `PUT /api/v1/admin/email/{tenant}/{code}`. */
export type EmailConfigBody = z.input<typeof emailConfigInput>;
/** An email configuration as answered (masked variables, the provider's secrets redacted). */
export type EmailConfig = ReturnType<typeof emailConfigView>;
export type EmailDelivery = Awaited<ReturnType<typeof listDeliveries>>[number];
/** Body of `POST /api/v1/email/send/{tenant}/{code}`. */
export type EmailSendBody = z.input<typeof sendRequestSchema>;
