/**
 * The closed lists of values the command line's options accept (`--format` of each
 * command). They sit in a module of their own, importing nothing, so that building
 * the command line (and `userscout --help`) loads no engine, catalogue or server.
 */
export type OutputFormat = 'table' | 'json' | 'csv' | 'html' | 'pdf' | 'graphml' | 'graph-csv';
/** `search --format`. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = [
  'table',
  'json',
  'csv',
  'html',
  'pdf',
  'graphml',
  'graph-csv',
];
/** The formats that only a file can hold (`--output` is required): a PDF, and the two files of graph-csv. */
export const FILE_FORMATS: readonly OutputFormat[] = ['pdf', 'graph-csv'];

export type PlatformsFormat = 'table' | 'json';
/** `platforms --format`. */
export const PLATFORMS_FORMATS: readonly PlatformsFormat[] = ['table', 'json'];

export type ReportFormat = 'json' | 'text';
/** `catalogue check --format`. */
export const REPORT_FORMATS: readonly ReportFormat[] = ['json', 'text'];

export type SelfCheckFormat = 'table' | 'json';
/** `catalogue self-check --format`. */
export const SELF_CHECK_FORMATS: readonly SelfCheckFormat[] = ['table', 'json'];

export type SyncFormat = 'text' | 'json';
/** `catalogue sync --format`. */
export const SYNC_FORMATS: readonly SyncFormat[] = ['text', 'json'];

export type AuditFormat = 'table' | 'json';
/** `catalogue audit --format`. */
export const AUDIT_FORMATS: readonly AuditFormat[] = ['table', 'json'];
