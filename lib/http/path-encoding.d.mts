export function hasMalformedPercentEncoding(pathname: string): boolean;
export const MALFORMED_PATH_MESSAGE: string;
