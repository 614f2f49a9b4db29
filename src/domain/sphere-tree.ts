import { RAD_PER_DEG as RAD } from './geo.js';

/**
 * A static KD-tree over points on the unit sphere, as 3-D vectors. The straight-line (chord)
 * distance between two unit vectors grows with the great-circle distance, so the nearest by chord
 * are the nearest on the Earth, and a walk needs no trigonometry: plain squared distances to
 * points and to splitting planes. Built once; the layout is kdbush's (an implicit tree, each node
 * the median of its range, split on x, y, z in turn).
 */
const LEAF = 32;

export class SphereTree {
  /** x, y, z of each point, in tree order. */
  private readonly xyz: Float64Array;
  /** The caller's index of each point, in tree order. */
  private readonly ids: Uint32Array;

  constructor(latDeg: ArrayLike<number>, lngDeg: ArrayLike<number>) {
    const n = latDeg.length;
    this.xyz = new Float64Array(n * 3);
    this.ids = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      unitVector(latDeg[i]!, lngDeg[i]!, this.xyz, i * 3);
      this.ids[i] = i;
    }
    this.sort(0, n - 1, 0);
  }

  /**
   * Up to `k` points nearest to (lat, lng) whose squared chord to it is at most `maxChord2`,
   * as the caller's indexes, in no particular order. `skip` (a caller's index, or -1) is left out.
   */
  nearest(lat: number, lng: number, k: number, maxChord2: number, skip: number): number[] {
    const q = new Float64Array(3);
    unitVector(lat, lng, q, 0);
    const heap = new BoundedMaxHeap(k);
    const { xyz, ids } = this;
    const qx = q[0]!,
      qy = q[1]!,
      qz = q[2]!;
    const visit = (i: number) => {
      const id = ids[i]!;
      if (id === skip) return;
      const dx = xyz[i * 3]! - qx,
        dy = xyz[i * 3 + 1]! - qy,
        dz = xyz[i * 3 + 2]! - qz;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= maxChord2) heap.offer(id, d2);
    };
    const walk = (left: number, right: number, axis: number): void => {
      if (right - left <= LEAF) {
        for (let i = left; i <= right; i++) visit(i);
        return;
      }
      const m = (left + right) >> 1;
      visit(m);
      const diff = (axis === 0 ? qx : axis === 1 ? qy : qz) - xyz[m * 3 + axis]!;
      const next = (axis + 1) % 3;
      if (diff < 0) {
        walk(left, m - 1, next);
        if (diff * diff <= heap.bound(maxChord2)) walk(m + 1, right, next);
      } else {
        walk(m + 1, right, next);
        if (diff * diff <= heap.bound(maxChord2)) walk(left, m - 1, next);
      }
    };
    if (ids.length) walk(0, ids.length - 1, 0);
    return heap.items();
  }

  private sort(left: number, right: number, axis: number): void {
    if (right - left <= LEAF) return;
    const m = (left + right) >> 1;
    this.select(m, left, right, axis);
    const next = (axis + 1) % 3;
    this.sort(left, m - 1, next);
    this.sort(m + 1, right, next);
  }

  /**
   * Quickselect (Lomuto's partition, middle pivot): afterwards the point at k has no point after
   * it smaller along `axis` and none before it larger, which is all a split needs.
   */
  private select(k: number, left: number, right: number, axis: number): void {
    const c = this.xyz;
    while (right > left) {
      this.swap((left + right) >> 1, right);
      const pivot = c[right * 3 + axis]!;
      let store = left;
      for (let i = left; i < right; i++) if (c[i * 3 + axis]! < pivot) this.swap(i, store++);
      this.swap(store, right);
      if (store === k) return;
      if (k < store) right = store - 1;
      else left = store + 1;
    }
  }

  private swap(i: number, j: number): void {
    const c = this.xyz;
    for (let a = 0; a < 3; a++) {
      const t = c[i * 3 + a]!;
      c[i * 3 + a] = c[j * 3 + a]!;
      c[j * 3 + a] = t;
    }
    const t = this.ids[i]!;
    this.ids[i] = this.ids[j]!;
    this.ids[j] = t;
  }
}

function unitVector(latDeg: number, lngDeg: number, out: Float64Array, at: number): void {
  const lat = latDeg * RAD;
  const lng = lngDeg * RAD;
  const cosLat = Math.cos(lat);
  out[at] = cosLat * Math.cos(lng);
  out[at + 1] = cosLat * Math.sin(lng);
  out[at + 2] = Math.sin(lat);
}

/** The k smallest offered so far. */
class BoundedMaxHeap {
  private readonly ids: number[] = [];
  private readonly keys: number[] = [];
  constructor(private readonly k: number) {}

  /** What a candidate must not exceed to matter: the radius until k are held, then the k-th. */
  bound(max: number): number {
    return this.ids.length < this.k ? max : Math.min(max, this.keys[0]!);
  }

  offer(id: number, key: number): void {
    const { ids, keys } = this;
    if (ids.length < this.k) {
      let i = ids.length;
      ids.push(id);
      keys.push(key);
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (keys[p]! >= key) break;
        ids[i] = ids[p]!;
        keys[i] = keys[p]!;
        i = p;
      }
      ids[i] = id;
      keys[i] = key;
      return;
    }
    if (key >= keys[0]!) return;
    let i = 0;
    const n = ids.length;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && keys[c + 1]! > keys[c]!) c++;
      if (keys[c]! <= key) break;
      ids[i] = ids[c]!;
      keys[i] = keys[c]!;
      i = c;
    }
    ids[i] = id;
    keys[i] = key;
  }

  items(): number[] {
    return this.ids;
  }
}
