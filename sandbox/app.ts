import express, { type NextFunction, type Request, type Response } from 'express';

import type { Deliverer } from './delivery';
import { ApiError, badField, errorHandler } from './errors';
import { authenticate, refuseKeyInQuery } from './middleware/auth';
import { injectFaults } from './middleware/faults';
import { requestLog } from './middleware/requestLog';
import { latency, rateLimit } from './middleware/traffic';
import { adminRoutes } from './routes/admin';
import { agentRoutes } from './routes/agents';
import { chatbotRoutes } from './routes/chatbot';
import { contactRoutes } from './routes/contacts';
import { sipRoutes } from './routes/sip';
import { trustProductRoutes } from './routes/trustProducts';
import { webhookRoutes } from './routes/webhook';
import { answerShapes } from './shapes';
import type { Store } from './store';

export interface AppDeps {
	store: Store;
	deliverer: Deliverer;
	adminToken: string;
	shutdown: AbortSignal;
	log?: (line: string) => void;
}

/** No public endpoint takes query parameters: any that arrives is an invalid parameter. */
function refuseQuery(req: Request, _res: Response, next: NextFunction): void {
	const names = Object.keys(req.query as object);
	if (names.length) throw badField(names[0], 'is not a known query parameter');
	next();
}

/** Express would answer OPTIONS by itself; the service defines no such method. */
function refuseOptions(req: Request, _res: Response, next: NextFunction): void {
	if (req.method === 'OPTIONS') throw new ApiError(404, 'no such endpoint');
	next();
}

export function createApp({
	store,
	deliverer,
	adminToken,
	shutdown,
	log,
}: AppDeps): express.Express {
	const app = express();
	app.disable('x-powered-by');
	app.disable('etag');
	app.set('case sensitive routing', true);
	app.set('strict routing', true);
	app.use((_req, res, next) => {
		res.setHeader('Cache-Control', 'no-store');
		next();
	});

	app.use('/__sandbox', adminRoutes({ store, deliverer, adminToken, log }));

	app.use(
		answerShapes(store),
		requestLog(store, log),
		latency(store, shutdown),
		refuseKeyInQuery(store),
		authenticate(store),
		rateLimit(store),
		injectFaults(store, shutdown),
		refuseQuery,
		refuseOptions,
	);
	app.use(agentRoutes(store));
	app.use(chatbotRoutes(store));
	app.use(sipRoutes(store));
	app.use(trustProductRoutes());
	app.use(contactRoutes());
	app.use(webhookRoutes(store));
	app.use(() => {
		throw new ApiError(404, 'no such endpoint');
	});
	app.use(errorHandler(log));
	return app;
}
