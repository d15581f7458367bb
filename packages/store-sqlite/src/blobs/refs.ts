/**
 * How the rows name the bytes they point at, for the bytes port. A row keeps an object's blobId and a part's
 * file name, never a path: the layout that turns them into refs belongs to the byte store (blob-fs's directory).
 */
export interface SqliteBlobRefs {
  /** The ref of an object whose bytes are kept outside the database. */
  object(blobId: string): string;
  /** The ref of a part's file, from the file name a row keeps. */
  part(file: string): string;
  /** The file name to keep in a part's row, from its ref. */
  partFile(ref: string): string;
}
