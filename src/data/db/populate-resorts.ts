import type { Db } from './open.js';
import type { BuildHooks } from './build-hooks.js';
import { loadResortCatalogue } from './sources/resort-source.js';
import { inventoryWriter, resortInsert } from './inventory-writer.js';

export function populateResorts(db: Db, hooks: BuildHooks): void {
  const insert = resortInsert(db, 'curated');
  const inventory = inventoryWriter(db);
  let written = 0;
  for (const resort of loadResortCatalogue()) {
    insert(resort);
    inventory.generated(resort);
    hooks.onProgress?.('resorts', ++written);
  }
}
