/** Seeded randomness so a control plane built with the same seed and calls produces the same world. */
export type Random = () => number;

/** mulberry32: tiny, fast, and good enough for simulated data (never for secrets). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer in [min, max]. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick: empty list');
  return item;
}

export function randomUuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

const ADJECTIVES = [
  'aged',
  'bitter',
  'bold',
  'calm',
  'cool',
  'crimson',
  'damp',
  'dark',
  'divine',
  'dry',
  'falling',
  'floral',
  'fragrant',
  'frosty',
  'gentle',
  'green',
  'hidden',
  'holy',
  'icy',
  'jolly',
  'late',
  'lingering',
  'little',
  'lively',
  'long',
  'lucky',
  'misty',
  'morning',
  'muddy',
  'noisy',
  'odd',
  'old',
  'orange',
  'patient',
  'plain',
  'polished',
  'proud',
  'purple',
  'quiet',
  'rapid',
  'raspy',
  'red',
  'restless',
  'rough',
  'round',
  'royal',
  'shiny',
  'shrill',
  'shy',
  'silent',
  'small',
  'snowy',
  'soft',
  'solitary',
  'sparkling',
  'spring',
  'square',
  'steep',
  'still',
  'summer',
  'super',
  'sweet',
  'throbbing',
  'tight',
  'tiny',
  'twilight',
  'wandering',
  'weathered',
  'white',
  'wild',
  'winter',
  'wispy',
  'withered',
  'yellow',
  'young',
] as const;

const NOUNS = [
  'art',
  'band',
  'bar',
  'base',
  'bird',
  'block',
  'boat',
  'bonus',
  'bread',
  'breeze',
  'brook',
  'bush',
  'butterfly',
  'cake',
  'cell',
  'cherry',
  'cloud',
  'credit',
  'darkness',
  'dawn',
  'dew',
  'disk',
  'dream',
  'dust',
  'feather',
  'field',
  'fire',
  'firefly',
  'flower',
  'fog',
  'forest',
  'frog',
  'frost',
  'glade',
  'glitter',
  'grass',
  'hall',
  'hat',
  'haze',
  'heart',
  'hill',
  'king',
  'lab',
  'lake',
  'leaf',
  'limit',
  'math',
  'meadow',
  'mode',
  'moon',
  'morning',
  'mountain',
  'mouse',
  'mud',
  'night',
  'paper',
  'pine',
  'poetry',
  'pond',
  'queen',
  'rain',
  'recipe',
  'resonance',
  'rice',
  'river',
  'salad',
  'scene',
  'sea',
  'shadow',
  'shape',
  'silence',
  'sky',
  'smoke',
  'snow',
  'snowflake',
  'sound',
  'star',
  'sun',
  'sunset',
  'surf',
  'term',
  'thunder',
  'tooth',
  'tree',
  'truth',
  'union',
  'unit',
  'violet',
  'voice',
  'water',
  'waterfall',
  'wave',
  'wildflower',
  'wind',
  'wood',
] as const;

/** Platform-style readable ids: `shiny-wind-028834`, `br-aged-salad-637688`. */
export function readableId(random: Random, prefix: string, digits: number): string {
  const number = String(Math.floor(random() * 10 ** digits)).padStart(digits, '0');
  const base = `${pick(random, ADJECTIVES)}-${pick(random, NOUNS)}-${number}`;
  return prefix ? `${prefix}-${base}` : base;
}
