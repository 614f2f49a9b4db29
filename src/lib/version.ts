/**
 * The API's version, as /openapi.json states it. The last released one's schema and document are
 * kept in schema/released/, and CHANGELOG.md says what changed since (scripts/api-compat.ts).
 */
export const API_VERSION = '1.0.0';
