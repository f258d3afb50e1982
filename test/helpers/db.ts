// Read stored trial rows straight from a results database while a run may still be writing it.
import Database from 'better-sqlite3';

/** The given columns of every stored trial, oldest first; [] while the database does not exist. */
export function storedTrialRows<T>(db: string, columns: string[]): T[] {
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return d.prepare(`SELECT ${columns.join(', ')} FROM trials ORDER BY id`).all() as T[];
    } finally {
      d.close();
    }
  } catch {
    return []; // not created yet
  }
}
