import { builder } from '../builder.js';
import { UNIT_LABELS, UNIT_SYSTEMS, UNITS_DESCRIPTION, type UnitLabels } from '../../domain/units.js';

const labelsOf = (l: UnitLabels) => [...new Set([l.depth, l.elevation, l.temperature, l.speed, l.precipitation])].join(', ');

export const UnitsEnum = builder.enumType('Units', {
  description: 'Unit system of the numbers returned. Stored values are metric.',
  values: Object.fromEntries(UNIT_SYSTEMS.map((u) => [u, { description: labelsOf(UNIT_LABELS[u]) }])) as Record<
    (typeof UNIT_SYSTEMS)[number],
    { description: string }
  >,
});

export const UnitLabelsRef = builder.objectRef<UnitLabels>('UnitLabels').implement({
  description: 'The unit of each kind of number in this response.',
  fields: (t) => ({
    system: t.expose('system', { type: UnitsEnum }),
    depth: t.exposeString('depth', { description: 'Snow depth and snowfall.' }),
    elevation: t.exposeString('elevation'),
    length: t.exposeString('length', { description: 'Trail length.' }),
    temperature: t.exposeString('temperature'),
    speed: t.exposeString('speed', { description: 'Wind speed and gusts.' }),
    precipitation: t.exposeString('precipitation', { description: 'Water equivalent.' }),
  }),
});

/** Every `units` argument: METRIC unless asked otherwise, and the SDL says so. */
export const unitsArg = { type: UnitsEnum, description: UNITS_DESCRIPTION, defaultValue: 'METRIC' } as const;
