/**
 * The model of docs/trigger-ownership.md ("The invariant") against the real module, in random
 * sequences (./ownershipModel.ts): a fixed seed, then a random one that is printed. The long run:
 * MODEL_STEPS=100000 (and MODEL_SEED to replay) runs sequences until that many steps have run.
 */
import './skipBackoffs';
import fc from 'fast-check';

import { property, World } from './ownershipModel';

const world = new World();
beforeAll(async () => await world.start());
afterAll(async () => await world.stop());

const FIXED_SEED = 4904950;
const longSteps = Number(process.env.MODEL_STEPS ?? 0);

if (longSteps > 0) {
	test(
		`the long run: ${longSteps} steps`,
		async () => {
			const seed = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
			const started = Date.now();
			const found: string[] = [];
			for (let round = 0; world.steps < longSteps; round++) {
				const details = await fc.check(property(world, 60), { seed: seed + round, numRuns: 50 });
				const minutes = ((Date.now() - started) / 60_000).toFixed(1);
				console.log(`ownership model long run: ${world.steps} steps, ${minutes} min`);
				if (details.failed) {
					found.push(
						`seed ${seed + round}: ${fc.stringify(details.counterexample)}: ${String(details.errorInstance)}`,
					);
					console.log(found.at(-1));
				}
			}
			const minutes = ((Date.now() - started) / 60_000).toFixed(1);
			console.log(
				`ownership model long run: seed ${seed}, ${world.steps} steps in ${minutes} min, ${found.length} counterexamples`,
			);
			expect(found).toEqual([]);
		},
		24 * 3600_000,
	);
} else {
	test(
		'fixed seed',
		async () => {
			const numRuns = Number(process.env.MODEL_RUNS ?? 15);
			await fc.assert(property(world, 30), { seed: FIXED_SEED, numRuns, verbose: 1 });
		},
		Number(process.env.MODEL_TIMEOUT ?? 120_000),
	);

	test(
		'a random seed (printed)',
		async () => {
			const seed = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
			console.log(`ownership model: random seed ${seed} (replay with MODEL_SEED=${seed})`);
			await fc.assert(property(world, 30), { seed, numRuns: 15, verbose: 1 });
		},
		Number(process.env.MODEL_TIMEOUT ?? 120_000),
	);
}
