/**
 * Runs `task` for indexes 0..count-1, starting them in input order with at most `concurrency` running at
 * once. Indexes that `recordOf` gives the same record run one after another in input order (an item that
 * reads a record and then writes it never interleaves with another item of that record); the others do
 * not wait for them. Once a task throws, no new index starts; the error of the lowest failing index is
 * rethrown after the running ones finish.
 */
export async function forEachIndex(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<void>,
	recordOf?: (index: number) => string | undefined,
): Promise<void> {
	const records = recordOf ? Array.from({ length: count }, (_, index) => recordOf(index)) : [];
	const limit = Math.max(1, concurrency);
	const busy = new Set<string>();
	// Indexes passed over while their record was busy: all below `next`, kept in input order.
	const deferred: number[] = [];
	const failures: Array<{ index: number; error: unknown }> = [];
	let next = 0;
	let running = 0;

	const isFree = (index: number) => records[index] === undefined || !busy.has(records[index]);
	const nextStartable = (): number | undefined => {
		const at = deferred.findIndex(isFree);
		if (at >= 0) return deferred.splice(at, 1)[0];
		while (next < count) {
			const index = next++;
			if (isFree(index)) return index;
			deferred.push(index);
		}
		return undefined;
	};

	await new Promise<void>((resolve) => {
		const fill = () => {
			while (failures.length === 0 && running < limit) {
				const index = nextStartable();
				if (index === undefined) break;
				const record = records[index];
				if (record !== undefined) busy.add(record);
				running++;
				void task(index)
					.catch((error: unknown) => {
						failures.push({ index, error });
					})
					.finally(() => {
						running--;
						if (record !== undefined) busy.delete(record);
						fill();
					});
			}
			if (running === 0) resolve();
		};
		fill();
	});
	if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].error;
}
