/**
 * The CRM workflow without Pass Once (the trigger's in-memory duplicate check only) under scenario a's
 * load, to compare with the suite: `npx tsx test/queue/baseline.ts [deliveries]`. Set
 * VOICEAI_QUEUE_TARBALL to an `npm pack` of another build (e.g. main's) to run that code instead.
 */
import { formatFigures, QueueRig } from '../../harness/queue/rig';

async function main(): Promise<void> {
	const total = Number(process.argv[2] ?? 2000);
	const rig = await QueueRig.start({ log: (line) => console.log(`[baseline] ${line}`) });
	try {
		const figures = await rig.run({ name: 'baseline', passOnce: false, total, repeatShare: 0.1 });
		console.log(formatFigures(figures));
	} finally {
		await rig.close();
	}
}

main().catch((error: Error) => {
	console.error(error.message);
	process.exit(1);
});
