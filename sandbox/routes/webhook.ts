import type { Router } from 'express';

import { orgOf, strictRouter } from '../context';
import { jsonBody } from '../middleware/body';
import type { Store } from '../store';
import { httpUrl, objectBody, required } from '../validate';

export function webhookRoutes(store: Store): Router {
	const router = strictRouter();
	router.post('/webhook/insert-webhook', ...jsonBody(store), (req, res) => {
		const body = objectBody(req.body, ['webhook']);
		orgOf(res).webhook = httpUrl(required(body, 'webhook'), 'webhook');
		res.status(200).json({ message: 'Webhook updated' });
	});
	return router;
}
