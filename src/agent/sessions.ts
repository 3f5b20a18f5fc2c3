import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { chatSessions, chatTurns, type ChatRole } from '../db/schema';

/** At most this many earlier turns are replayed to the model (the newest ones). */
export const MAX_REPLAYED_TURNS = 40;

export interface Turn {
  role: ChatRole;
  text: string;
}

/** The row id of a session, created when it does not exist yet (a client may choose its own session id). */
async function sessionRowId(db: Db, agentId: number, sessionId: string): Promise<number> {
  const [row] = await db
    .insert(chatSessions)
    .values({ agentId, sessionId })
    .onConflictDoUpdate({ target: [chatSessions.agentId, chatSessions.sessionId], set: { updatedAt: new Date().toISOString() } })
    .returning({ id: chatSessions.id });
  return row.id;
}

/** `init`: the session starts over (its turns are deleted). */
export async function resetSession(db: Db, agentId: number, sessionId: string): Promise<void> {
  const id = await sessionRowId(db, agentId, sessionId);
  await db.delete(chatTurns).where(eq(chatTurns.sessionRowId, id));
}

export async function loadHistory(db: Db, agentId: number, sessionId: string): Promise<Turn[]> {
  const rows = await db
    .select({ role: chatTurns.role, text: chatTurns.text })
    .from(chatTurns)
    .innerJoin(chatSessions, eq(chatTurns.sessionRowId, chatSessions.id))
    .where(and(eq(chatSessions.agentId, agentId), eq(chatSessions.sessionId, sessionId)))
    .orderBy(desc(chatTurns.id))
    .limit(MAX_REPLAYED_TURNS);
  return rows.reverse();
}

export async function appendTurns(db: Db, agentId: number, sessionId: string, turns: Turn[]): Promise<void> {
  const id = await sessionRowId(db, agentId, sessionId);
  await db.insert(chatTurns).values(turns.map((turn) => ({ sessionRowId: id, ...turn })));
}
