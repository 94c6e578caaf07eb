/// `value` with exactly `places` decimals (`fixed(3.0025, places: 3)` is `3.003`; no minus sign
/// when it rounds to zero), without Foundation's formatters: the one way the tools print seconds
/// and rates for people.
package func fixed(_ value: Double, places: Int) -> String {
  let scale = (0..<max(places, 0)).reduce(1) { result, _ in result * 10 }
  let units = Int((value * Double(scale)).rounded())
  let sign = units < 0 ? "-" : ""
  guard places > 0 else { return sign + "\(abs(units))" }
  let fraction = String(abs(units) % scale)
  return sign + "\(abs(units) / scale)." + String(repeating: "0", count: places - fraction.count)
    + fraction
}
