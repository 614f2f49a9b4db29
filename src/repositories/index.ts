import type { Db } from '../db/open.js';
import { ZipRepository } from './zips.js';

export interface Repositories {
  zips: ZipRepository;
}

export function createRepositories(db: Db): Repositories {
  return { zips: new ZipRepository(db) };
}
