/**
 * The exit codes of the command line, one home for the README's table and every
 * command: 0 done, 1 failed, 2 a usage error (bad option, value or name), 3 a
 * search that ran but where too few platforms answered to trust a missing hit.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** Fewer than `coverageWarningPercent` of the platforms checked answered hit or miss. */
export const EXIT_LOW_COVERAGE = 3;
