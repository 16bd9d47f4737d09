/**
 * Leveraged and inverse ETFs (part 1 §2: a fixed list that always shows initials). A logo service
 * answers with the fund company's logo for these, which tells a trader nothing about the fund.
 */
export const LEVERAGED_ETFS: ReadonlySet<string> = new Set([
  'AAPU', 'AMZU', 'BITX', 'BOIL', 'BULZ', 'CONL', 'CURE', 'DFEN', 'DPST', 'DRN', 'DRV', 'DUST', 'ERX', 'ERY', 'ETHU',
  'FAS', 'FAZ', 'FNGD', 'FNGU', 'GGLL', 'JDST', 'JNUG', 'KOLD', 'LABD', 'LABU', 'METU', 'MSFU', 'MSTU', 'MSTX', 'NAIL',
  'NUGT', 'NVDL', 'NVDU', 'QID', 'QLD', 'SCO', 'SDOW', 'SDS', 'SOXL', 'SOXS', 'SPXL', 'SPXS', 'SPXU', 'SQQQ', 'SSO',
  'SVIX', 'SVXY', 'TECL', 'TECS', 'TMF', 'TMV', 'TNA', 'TQQQ', 'TSLL', 'TSLQ', 'TSLZ', 'TZA', 'UCO', 'UDOW', 'UPRO',
  'UVIX', 'UVXY', 'WEBL', 'WEBS', 'YANG', 'YINN',
]);
