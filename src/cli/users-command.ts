import { parseArgs } from 'node:util';
import {
  databasePathFromEnv,
  openDatabase,
  type RunStore,
  RunStoreError,
  SqliteRunStore,
} from '../store/index.ts';
import { openPostgres, PostgresRunStore } from '../store/postgres/index.ts';
import { UsageError } from './usage-error.ts';

export const USERS_USAGE = `Usage:
  runstream users add "<name>" [--id usr_…]   a new user; prints its id
  runstream users list                        every user, with how many tokens it has
  runstream users token create <user-id> [--label <text>]
                                              a new API token for the user, printed once: only its
                                              hash is stored
  runstream users token list <user-id>        the user's tokens by id, label and date (never the token)
  runstream users token revoke <token-id>     the token (tok_…) stops working at the next request

The users are the server's: in --db <file> (default $RUNSTREAM_DB or ./data/runstream.db), or in
PostgreSQL when RUNSTREAM_DATABASE_URL is set. Exit code: 0 done, 1 refused (unknown user or token,
taken id), 2 called wrongly.`;

/** The `runstream users` command: the users and API tokens of the server's store. */
export async function usersCommand(
  argv: string[],
  output: NodeJS.WriteStream = process.stdout,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      id: { type: 'string' },
      label: { type: 'string' },
    },
  });
  const [subcommand, ...rest] = positionals;
  const print = (line = '') => output.write(`${line}\n`);
  const action = usersAction(subcommand, rest, values);
  const { store, close } = await openStore(values.db, env);
  try {
    await action(store, print);
    return 0;
  } catch (error) {
    if (error instanceof RunStoreError) {
      process.stderr.write(`runstream: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await close();
  }
}

type Print = (line?: string) => void;
type UsersAction = (store: RunStore, print: Print) => Promise<void>;

/** What to do, checked before the store is opened, so a wrong call never touches it. */
function usersAction(
  subcommand: string | undefined,
  rest: string[],
  values: { id?: string | undefined; label?: string | undefined },
): UsersAction {
  switch (subcommand) {
    case 'add': {
      const name = rest.join(' ').trim();
      if (name.length === 0) throw new UsageError('users add needs a name', USERS_USAGE);
      if (values.id !== undefined && !/^usr_[A-Za-z0-9_-]{1,64}$/.test(values.id))
        throw new UsageError('--id must look like usr_ada (letters, digits, _ and -)', USERS_USAGE);
      return async (store, print) => {
        const user = await store.createUser(name, values.id === undefined ? {} : { id: values.id });
        print(user.id);
      };
    }
    case 'list':
      return async (store, print) => {
        for (const user of await store.listUsers()) {
          const tokens = await store.listTokens(user.id);
          print(
            `${user.id}\t${user.name}\t${new Date(user.createdAt).toISOString()}\t${tokens.length} token(s)`,
          );
        }
      };
    case 'token':
      return tokenAction(rest, values);
    default:
      throw new UsageError(
        subcommand === undefined ? 'users needs a subcommand' : `unknown users subcommand "${subcommand}"`,
        USERS_USAGE,
      );
  }
}

function tokenAction(rest: string[], values: { label?: string | undefined }): UsersAction {
  const [verb, target, ...extra] = rest;
  if (target === undefined || extra.length > 0)
    throw new UsageError(`users token ${verb ?? '…'} needs exactly one id`, USERS_USAGE);
  switch (verb) {
    case 'create':
      return async (store, print) => {
        await requireUser(store, target);
        // The only time the token is shown: the store keeps its hash.
        print(await store.issueToken(target, values.label));
      };
    case 'list':
      return async (store, print) => {
        await requireUser(store, target);
        for (const token of await store.listTokens(target))
          print(`${token.id}\t${token.label ?? '-'}\t${new Date(token.createdAt).toISOString()}`);
      };
    case 'revoke':
      return async (store, print) => {
        if (!(await store.revokeToken(target)))
          throw new RunStoreError(
            'not_found',
            `no token ${target} (see runstream users token list <user-id>)`,
          );
        print(`revoked ${target}`);
      };
    default:
      throw new UsageError(`unknown users token subcommand "${verb}"`, USERS_USAGE);
  }
}

async function requireUser(store: RunStore, userId: string): Promise<void> {
  if ((await store.getUser(userId)) === undefined)
    throw new RunStoreError('not_found', `no user ${userId} (see runstream users list)`);
}

/** The server's store: PostgreSQL with RUNSTREAM_DATABASE_URL, else the SQLite file. */
async function openStore(
  databasePath: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ store: RunStore; close: () => Promise<void> }> {
  const databaseUrl = env.RUNSTREAM_DATABASE_URL?.trim();
  if (databaseUrl) {
    const pool = await openPostgres(databaseUrl);
    return { store: await PostgresRunStore.open(pool), close: () => pool.end() };
  }
  const database = openDatabase(databasePath ?? databasePathFromEnv(env));
  return {
    store: new SqliteRunStore(database),
    close: async () => {
      database.close();
    },
  };
}
