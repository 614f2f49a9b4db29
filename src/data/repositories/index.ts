import type { Db } from '../db/open.js';
import { InventoryRepository } from './inventory.js';
import { ResortRepository } from './resorts.js';
import { WeatherRepository } from './weather.js';
import { ZipRepository } from './zips.js';
import { KeyRepository } from './keys.js';
import { ZoneOffsetRepository } from './zone-offsets.js';

export interface Repositories {
  zips: ZipRepository;
  resorts: ResortRepository;
  inventory: InventoryRepository;
  weather: WeatherRepository;
  keys: KeyRepository;
  zoneOffsets: ZoneOffsetRepository;
}

export function createRepositories(db: Db): Repositories {
  return {
    zips: new ZipRepository(db),
    resorts: new ResortRepository(db),
    inventory: new InventoryRepository(db),
    weather: new WeatherRepository(db),
    keys: new KeyRepository(db),
    zoneOffsets: new ZoneOffsetRepository(db),
  };
}
