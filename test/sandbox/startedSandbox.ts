/** The sandbox a describe block's tests talk to, started and closed around them. */
import { Harness } from '../../harness/sandboxHttp';

/**
 * Starts a sandbox before the block's tests (`perTest`: a fresh one before each test) and closes it
 * after them; the returned function gives the running one.
 */
export function startedSandbox(
	options: Parameters<typeof Harness.start>[0] = {},
	perTest = false,
): () => Harness {
	let harness: Harness | undefined;
	const start = async () => {
		harness = await Harness.start(options);
	};
	const close = async () => await harness?.close();
	if (perTest) {
		beforeEach(start);
		afterEach(close);
	} else {
		beforeAll(start);
		afterAll(close);
	}
	return () => {
		if (!harness) throw new Error('the sandbox is read outside a test');
		return harness;
	};
}
