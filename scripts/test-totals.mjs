// Prints vitest's JSON report as the one plain line CI reads: "N passed, M failed[, K skipped]".
import { readFileSync } from 'node:fs';

let report;
try {
  report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const skipped = report.numPendingTests + report.numTodoTests;
const failed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || report.numPassedTests === 0 ? 1 : 0);
