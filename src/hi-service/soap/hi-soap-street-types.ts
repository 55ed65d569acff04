// The street type of an Australian street address: the HI Service takes it apart from the street
// name, as an AS 4590 code (its streetType enumeration). erx holds one street_name ("Ross RD",
// "Ross Road"), so a last word that is a code, or a common word for one, is sent as streetType.

const STREET_TYPE_CODES = new Set(
  (
    'ACCS ALLY ALWY AMBL ANCG APP ARC ART AVE BASN BCH BEND BLK BWLK BVD BRCE BRAE BRK BDGE BDWY BROW BYPA BYWY ' +
    'CAUS CTR CNWY CH CIR CLT CCT CRCS CL CLDE CMMN CON CPS CNR CSO CT CTYD COVE CRES CRST CRSS CRSG CRD COWY ' +
    'CUWY CDS CTTG DALE DELL DEVN DIP DSTR DR DRWY EDGE ELB END ENT ESP EST EXP EXTN FAWY FTRK FITR FLAT FOLW ' +
    'FTWY FSHR FORM FWY FRNT FRTG GAP GDN GDNS GTE GTES GLD GLEN GRA GRN GRND GR GLY HTS HRD HWY HILL INTG INTN ' +
    'JNC KEY LDG LANE LNWY LEES LINE LINK LT LKT LOOP LWR MALL MNDR MEW MEWS MWY MT NOOK OTLK PDE PARK PKLD PKWY ' +
    'PART PASS PATH PHWY PIAZ PL PLAT PLZA PKT PNT PORT PROM QUAD QDGL QDRT QY QYS RMBL RAMP RNGE RCH RES REST ' +
    'RTT RIDE RDGE RGWY ROWY RING RISE RVR RVWY RVRA RD RDS RDSD RDWY RNDE RSBL RTY RND RTE ROW RUE RUN SWY SHUN ' +
    'SDNG SLPE SND SPUR SQ STRS SHWY STPS STRA ST STRP SBWY TARN TCE THOR TLWY TOP TOR TWRS TRK TRL TRLR TRI ' +
    'TKWY TURN UPAS UPR VALE VDCT VIEW VLLS VSTA WADE WALK WKWY WAY WHRF WYND YARD'
  ).split(' '),
);

/** The words people write most often for a street type, by the code they stand for. */
const STREET_TYPE_WORDS: Readonly<Record<string, string>> = {
  ALLEY: 'ALLY', ARCADE: 'ARC', AVENUE: 'AVE', AV: 'AVE', BOULEVARD: 'BVD', CIRCUIT: 'CCT', CLOSE: 'CL',
  COURT: 'CT', CRESCENT: 'CRES', DRIVE: 'DR', ESPLANADE: 'ESP', FREEWAY: 'FWY', GARDENS: 'GDNS', GROVE: 'GR',
  HIGHWAY: 'HWY', PARADE: 'PDE', PLACE: 'PL', PROMENADE: 'PROM', ROAD: 'RD', SQUARE: 'SQ', STREET: 'ST',
  TERRACE: 'TCE', TRACK: 'TRK',
};

export interface WireStreet {
  streetName: string;
  streetType?: string;
}

/** Splits a recognised street type off the end of a street name; the name stays whole otherwise. */
export function splitStreetType(streetName: string): WireStreet {
  const words = streetName.trim().split(/\s+/);
  if (words.length < 2) return { streetName: streetName.trim() };
  const last = words[words.length - 1]!.toUpperCase().replace(/\.$/, '');
  const code = STREET_TYPE_CODES.has(last) ? last : STREET_TYPE_WORDS[last];
  return code === undefined ? { streetName: streetName.trim() } : { streetName: words.slice(0, -1).join(' '), streetType: code };
}
