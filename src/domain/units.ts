/** Metric is stored; imperial is converted on the way out when a client asks for it. */
export const UNIT_SYSTEMS = ['METRIC', 'IMPERIAL'] as const;
export type Units = (typeof UNIT_SYSTEMS)[number];

/** What a `units` argument or parameter means, in GraphQL and in /openapi.json alike. */
export const UNITS_DESCRIPTION = 'The unit system of the numbers returned: metric (the default) or imperial.';

export interface UnitLabels {
  system: Units;
  depth: string;
  elevation: string;
  length: string;
  temperature: string;
  speed: string;
  precipitation: string;
}

export const UNIT_LABELS: Record<Units, UnitLabels> = {
  METRIC: { system: 'METRIC', depth: 'cm', elevation: 'm', length: 'm', temperature: '°C', speed: 'km/h', precipitation: 'mm' },
  IMPERIAL: { system: 'IMPERIAL', depth: 'in', elevation: 'ft', length: 'ft', temperature: '°F', speed: 'mph', precipitation: 'in' },
};

const round = (x: number, places: number) => {
  const f = 10 ** places;
  return Math.round(x * f) / f;
};

export const toUnits = {
  depth: (cm: number, u: Units) => (u === 'METRIC' ? round(cm, 1) : round(cm / 2.54, 1)),
  elevation: (m: number, u: Units) => (u === 'METRIC' ? Math.round(m) : Math.round(m / 0.3048)),
  length: (m: number, u: Units) => (u === 'METRIC' ? Math.round(m) : Math.round(m / 0.3048)),
  temperature: (c: number, u: Units) => (u === 'METRIC' ? round(c, 1) : round((c * 9) / 5 + 32, 1)),
  speed: (kmh: number, u: Units) => (u === 'METRIC' ? round(kmh, 1) : round(kmh / 1.609344, 1)),
  precipitation: (mm: number, u: Units) => (u === 'METRIC' ? round(mm, 1) : round(mm / 25.4, 2)),
};
