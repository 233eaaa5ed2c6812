/**
 * What a callout says of the console's next try by itself. Its countdown runs on real time (a second before the first
 * retry), so a machine busy enough, a second CI run beside this one say, may first read it at its end: "Retrying now."
 */
export const RETRY_SAID = /Retrying (in \d+ s|now)\./;
