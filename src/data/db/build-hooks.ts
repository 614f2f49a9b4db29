/** What a build tells its caller as it goes. */
export interface BuildHooks {
  /** Called as rows are written; an exception here aborts the build (tests use it to crash midway). */
  onProgress?: (table: string, rowsWritten: number) => void;
}
