/**
 * Where the pages keep the API key in the browser (local storage): GraphiQL stores the key it was
 * given under this name, and /docs starts with it, so "Test Request" there works without typing it again.
 */
export const BROWSER_KEY_STORE = 'ski-zip-gateway.apiKey';
