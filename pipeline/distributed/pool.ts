import pg from 'pg';
import type { Logger } from '../core/index.ts';
import { ensureSchema } from './schema.ts';

/** A connection pool to the coordinator, its tables created where missing. */
export async function openPool(url: string, logger: Logger): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // an idle connection that breaks (server restarted) is reported here, not thrown at random
  pool.on('error', (error) => logger.warn({ error: error.message }, 'coordinator connection lost'));
  try {
    await ensureSchema(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}
