/**
 * How deep locations nest: a top-level location is level 1. Deep enough for any map (realm,
 * province, city, district, street, house, room …); without a bound a chain thousands deep made
 * every export quadratic in size and then overflowed the stack (outside audit). create_location
 * and import_world both hold to it.
 */
export const MAX_LOCATION_DEPTH = 32;
