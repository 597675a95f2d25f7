// Prints one closing line over every jest report given: "Summary: N passed, N failed, N skipped".
const fs = require('fs');

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
	if (!fs.existsSync(file)) {
		console.log(`${file}: no report (the suite did not run)`);
		failed += 1;
		continue;
	}
	const report = JSON.parse(fs.readFileSync(file, 'utf8'));
	passed += report.numPassedTests;
	failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
	skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`Summary: ${passed} passed, ${failed} failed, ${skipped} skipped`);
