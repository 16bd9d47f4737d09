/**
 * A Map of at most `max` entries for in-process caches: `set` makes the key the newest, and a new key
 * past the bound drops the oldest one.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number;

  constructor(max: number) {
    super();
    this.#max = max;
  }

  override set(key: K, value: V): this {
    this.delete(key);
    if (this.size >= this.#max) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
