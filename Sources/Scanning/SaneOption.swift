import CSane

/// One option as its descriptor describes it, copied out of SANE.
public struct OptionInfo: Sendable, Equatable {
    /// The descriptor's index, the number `sane_control_option` takes.
    public var index: Int32
    /// Empty for group headings.
    public var name: String
    public var title: String
    public var description: String
    public var type: OptionType
    public var unit: OptionUnit
    /// Bytes the value takes (for strings, including the NUL).
    public var size: Int
    public var capabilities: OptionCapabilities
    public var constraint: OptionConstraint

    /// Words in the value: 1 for a scalar, more for an array (gamma tables).
    public var count: Int {
        switch type {
        case .bool, .int, .fixed: max(1, size / MemoryLayout<SANE_Word>.size)
        default: 1
        }
    }
    public var isActive: Bool { !capabilities.contains(.inactive) }
    public var isSettable: Bool { capabilities.contains(.softSelect) }
    public var isReadable: Bool { capabilities.contains(.softDetect) }
    /// A sensor the user changes on the device (a scan button): SANE_CAP_HARD_SELECT.
    public var isButton: Bool { capabilities.contains(.hardSelect) }
}

public enum OptionType: Sendable, Equatable {
    case bool, int, fixed, string, button, group

    init(_ type: SANE_Value_Type) {
        switch type {
        case SANE_TYPE_BOOL: self = .bool
        case SANE_TYPE_INT: self = .int
        case SANE_TYPE_FIXED: self = .fixed
        case SANE_TYPE_STRING: self = .string
        case SANE_TYPE_BUTTON: self = .button
        default: self = .group
        }
    }
}

public enum OptionUnit: Sendable, Equatable {
    case none, pixel, bit, mm, dpi, percent, microsecond

    init(_ unit: SANE_Unit) {
        switch unit {
        case SANE_UNIT_PIXEL: self = .pixel
        case SANE_UNIT_BIT: self = .bit
        case SANE_UNIT_MM: self = .mm
        case SANE_UNIT_DPI: self = .dpi
        case SANE_UNIT_PERCENT: self = .percent
        case SANE_UNIT_MICROSECOND: self = .microsecond
        default: self = .none
        }
    }
}

public struct OptionCapabilities: OptionSet, Sendable, Equatable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let softSelect = Self(rawValue: SANE_CAP_SOFT_SELECT)
    /// Set by the user at the device: a button or switch.
    public static let hardSelect = Self(rawValue: SANE_CAP_HARD_SELECT)
    public static let softDetect = Self(rawValue: SANE_CAP_SOFT_DETECT)
    public static let emulated = Self(rawValue: SANE_CAP_EMULATED)
    public static let automatic = Self(rawValue: SANE_CAP_AUTOMATIC)
    public static let inactive = Self(rawValue: SANE_CAP_INACTIVE)
    public static let advanced = Self(rawValue: SANE_CAP_ADVANCED)
}

/// Which values an option takes. Range and word-list values of fixed options are already unfixed
/// (SANE_UNFIX: word / 65536.0); those of int options are whole numbers.
public enum OptionConstraint: Sendable, Equatable {
    case none
    /// `quant` 0 means any value in the range.
    case range(min: Double, max: Double, quant: Double)
    case words([Double])
    case strings([String])
}

/// A typed option value. `.fixed` is the real number; the adapter converts to SANE_Fixed (×65536).
public enum OptionValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case fixed(Double)
    case string(String)
    /// Array options (gamma tables), read and written whole.
    case ints([Int])
    case fixeds([Double])

    public var description: String {
        switch self {
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .fixed(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .ints(let v): "\(v)"
        case .fixeds(let v): "\(v)"
        }
    }

    /// The value as a number, for int and fixed options alike.
    public var number: Double? {
        switch self {
        case .int(let v): Double(v)
        case .fixed(let v): v
        default: nil
        }
    }
}

/// What `set` did: the value the device settled on, and what the backend said changed.
public struct SetResult: Sendable, Equatable {
    public var value: OptionValue?
    /// SANE_INFO_INEXACT: the device rounded or clamped; `value` is what it chose.
    public var inexact: Bool
    /// SANE_INFO_RELOAD_OPTIONS: other options changed (activity, constraints); the device re-reads them.
    public var reloadedOptions: Bool
    /// SANE_INFO_RELOAD_PARAMS: the frame parameters changed.
    public var reloadParameters: Bool
}

enum Fixed {
    static func unfix(_ word: SANE_Word) -> Double { Double(word) / 65536.0 }
    /// Rounded to the nearest representable value (SANE_FIX truncates; rounding keeps 0.1 mm as close as it gets).
    static func fix(_ value: Double) -> SANE_Word { SANE_Word((value * 65536.0).rounded()) }
}

extension OptionInfo {
    init(index: Int32, _ d: SANE_Option_Descriptor) {
        let type = OptionType(d.type)
        let isFixed = type == .fixed
        let number = { (word: SANE_Word) in isFixed ? Fixed.unfix(word) : Double(word) }
        var constraint = OptionConstraint.none
        switch d.constraint_type {
        case SANE_CONSTRAINT_RANGE:
            if let r = d.constraint.range?.pointee {
                constraint = .range(min: number(r.min), max: number(r.max), quant: number(r.quant))
            }
        case SANE_CONSTRAINT_WORD_LIST:
            // The first word is the list's length.
            if let list = d.constraint.word_list {
                constraint = .words((0..<Int(list[0])).map { number(list[$0 + 1]) })
            }
        case SANE_CONSTRAINT_STRING_LIST:
            if let list = d.constraint.string_list {
                var strings: [String] = []
                var i = 0
                while let s = list[i] { strings.append(String(cString: s)); i += 1 }
                constraint = .strings(strings)
            }
        default: break
        }
        self.init(
            index: index, name: string(d.name), title: string(d.title), description: string(d.desc),
            type: type, unit: OptionUnit(d.unit), size: Int(d.size),
            capabilities: OptionCapabilities(rawValue: d.cap), constraint: constraint)
    }
}
