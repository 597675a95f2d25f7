import { patternCheck } from './fieldError';

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
/** The hex notations of CSS Color 4: #RGB, #RGBA, #RRGGBB, #RRGGBBAA. */
const ANY_HEX_COLOUR = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

export const checkHexColour = patternCheck(
	HEX_COLOUR,
	'is not a #RRGGBB colour',
	'Use a hex colour such as #1A73E8.',
);

/** A colour the spec calls only "hex colour": every hex form goes on as written, anything else is refused. */
export const checkAnyHexColour = patternCheck(
	ANY_HEX_COLOUR,
	'is not a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA)',
	'Use a hex colour such as #1A73E8 or #FFF; colour names and rgb() are not hex colours.',
);
