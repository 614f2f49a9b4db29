/** Lower case without accents ("Cañon" -> "canon"): the form names are compared and slugged in. */
export function foldAccents(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}
