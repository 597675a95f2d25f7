import type { Router } from 'express';

import { orgOf, strictRouter } from '../context';
import { notFound } from '../errors';

/** Carriers the sandbox knows (case-sensitive). Any other carrier segment is a 404. */
export const CARRIERS = ['twilio'] as const;

export function trustProductRoutes(): Router {
	const router = strictRouter();
	router.get('/agency/:carrier/trust-products', (req, res) => {
		const carrier = req.params.carrier;
		if (!(CARRIERS as readonly string[]).includes(carrier)) throw notFound('carrier');
		res.status(200).json(orgOf(res).trustProducts.get(carrier) ?? []);
	});
	return router;
}
