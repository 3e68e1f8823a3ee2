import Foundation
import HTTPServer
import TrapperCore

/// JSON in and out of the workspace, through Foundation's own reader and writer.
enum WebJSON {
    static func response(_ object: Any, status: Int = 200) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                            body: .bytes(Array(data)))
    }

    static func error(_ status: Int, _ message: String, problems: [String] = []) -> HTTPResponse {
        var object: [String: Any] = ["error": message]
        if !problems.isEmpty { object["problems"] = problems }
        return response(object, status: status)
    }

    /// A request body that must be a JSON object.
    static func object(_ body: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    static func date(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// A number to two decimals, as the browser needs no more.
    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    /// "#rrggbb", as a colour input holds it.
    static func hex(_ color: RGBColor) -> String {
        let byte = { (v: Double) in String(format: "%02x", Int((min(1, max(0, v)) * 255).rounded())) }
        return "#" + byte(color.red) + byte(color.green) + byte(color.blue)
    }
}
