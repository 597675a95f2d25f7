import type { Router } from 'express';

import { orgOf, strictRouter } from '../context';
import type { Org } from '../types';

/** Distinct list names in the order each list first received a contact. */
export function listNames(org: Org): string[] {
	return [...new Set(org.contacts.map((contact) => contact.list))];
}

export function contactRoutes(): Router {
	const router = strictRouter();
	router.get('/contacts/list-names', (_req, res) => {
		res.status(200).json(listNames(orgOf(res)));
	});
	return router;
}
