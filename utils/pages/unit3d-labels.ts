/**
 * UNIT3D's label for the info-hash (`__('torrent.info-hash')`), in every language the project has
 * shipped. Data, not a choice: every distinct value of 'info-hash' in
 * HDInnovations/UNIT3D-Community-Edition `lang/<language>/torrent.php` (`resources/lang/...` before
 * v7), over every tag v1.0.0 … v9.0.1 and master at 44a3aeac1959e15e62cbdfdf6b3f293cb46efb78:
 *
 *   for t in $(git tag) HEAD; do git grep -h "'info-hash'" $t -- 'lang/*' 'resources/lang/*'; done | sort -u
 *
 * The other languages (ar, ru, ja, …) have no such key and fall back to English. The engine reads
 * the hash by the files dialog's structure first; these let the label rules read it anywhere else.
 */
export const UNIT3D_INFO_HASH_LABELS: readonly string[] = [
  'Info Hash', // en, da, de, no, and every language without the key
  'Hash de contrôle', // fr
  'Hash del archivo', // es
  'Πληροφορίες Hash', // el
  'Інфо Хеш', // uk
  '校验码', // zh-CN
  '校驗碼', // zh-TW
];
