import { type Response, Router } from 'express';

import type { Store } from './store';
import type { ApiKeyRecord, Org } from './types';

/** What the auth middleware leaves for the route handlers. */
export function orgOf(res: Response): Org {
	return res.locals.org as Org;
}

export function keyOf(res: Response): ApiKeyRecord {
	return res.locals.key as ApiKeyRecord;
}

export interface RouteDeps {
	store: Store;
}

/** Routers of the sandbox match paths exactly: case-sensitive, and a trailing slash is another path. */
export function strictRouter(): Router {
	return Router({ strict: true, caseSensitive: true });
}
