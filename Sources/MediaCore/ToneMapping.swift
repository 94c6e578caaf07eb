/// HDR to SDR, one recipe for every tool that makes an SDR picture from an HDR one (mediaframe's
/// posters, `mediacompat --fix` re-encoding PQ or HLG video for a platform that decodes 8-bit
/// BT.709 only).
///
/// The libavfilter chain (Debian's FFmpeg 5.1 has `zscale`, libzimg): `zscale` linearizes the
/// light with a nominal peak of 100 cd/m², converts the primaries to BT.709 in 32-bit float
/// R'G'B', `tonemap` compresses the highlights with Hable's filmic curve (no desaturation), and
/// `zscale` applies the BT.709 transfer and matrix, limited range, 8-bit 4:2:0: the recipe
/// FFmpeg's documentation and most guides give for HDR10 to SDR.
public enum ToneMapping {
  /// The graph description, from the decoded HDR picture to 8-bit 4:2:0 BT.709 limited range.
  public static let libavfilterChain =
    "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
    + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

  /// The transfer characteristics (as FFmpeg names them) that mark a picture as HDR: SMPTE ST
  /// 2084 (PQ) and ARIB STD-B67 (HLG).
  public static let hdrTransfers: Set<String> = ["smpte2084", "arib-std-b67"]
}
