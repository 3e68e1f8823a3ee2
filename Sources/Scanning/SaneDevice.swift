import CSane

/// An open SANE device: its options, buttons and scans. Closes in deinit. Not thread-safe; one owner.
public final class SaneDevice {
    let handle: SANE_Handle
    public let name: String
    /// Held so `sane_exit` waits until this handle is closed.
    private let session: SaneSession
    var sane: trapper_sane { session.sane }
    /// Descriptors copied out; dropped when a set reports SANE_INFO_RELOAD_OPTIONS.
    private var cachedOptions: [OptionInfo]?
    /// Set once a frame's reader threads were still running after its data: this backend's
    /// readers are not waited for again (see ReaderThreads).
    var readersOutliveFrames = false
    /// Told of each SANE call a scan is about to make, and of the error one returned before the
    /// scan is cancelled: a process watching the scan from outside (the scanner agent's parent)
    /// learns where a backend hung, and why the scan failed even when cancelling it then hangs
    /// (some backends' reader threads, see ReaderThreads).
    public var watcher: ((ScanStep) -> Void)?

    init(handle: SANE_Handle, name: String, session: SaneSession) {
        self.handle = handle
        self.name = name
        self.session = session
    }

    deinit { sane.sane_close(handle) }

    /// Every option in descriptor order, groups included (option 0, the count, left out).
    public func options() -> [OptionInfo] {
        if let cachedOptions { return cachedOptions }
        var found: [OptionInfo] = []
        var index: Int32 = 1
        while let descriptor = sane.sane_get_option_descriptor(handle, index) {
            found.append(OptionInfo(index: index, descriptor.pointee))
            index += 1
        }
        cachedOptions = found
        return found
    }

    public func option(_ name: String) throws(ScanError) -> OptionInfo {
        guard !name.isEmpty, let info = options().first(where: { $0.name == name }) else {
            throw .noSuchOption(name)
        }
        return info
    }

    /// The option's current value, typed by its descriptor.
    public func get(_ name: String) throws(ScanError) -> OptionValue {
        let info = try readableOption(name)
        switch info.type {
        case .string:
            var buffer = [CChar](repeating: 0, count: max(info.size, 1) + 1)
            try control(info, SANE_ACTION_GET_VALUE, &buffer, "get \(name)")
            return .string(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        case .bool, .int, .fixed:
            var words = [SANE_Word](repeating: 0, count: info.count)
            try control(info, SANE_ACTION_GET_VALUE, &words, "get \(name)")
            return Self.value(of: info, words)
        case .button, .group:
            throw .invalidValue(option: name, reason: "a \(info.type) has no value")
        }
    }

    /// Sets an option and reads back what the device chose (SANE_INFO_INEXACT means it rounded or
    /// clamped). An `.int` sets a fixed option; a whole `.fixed` sets an int option. String values
    /// from a list match case-insensitively and are checked here, for a clearer error than EINVAL.
    @discardableResult
    public func set(_ name: String, _ value: OptionValue) throws(ScanError) -> SetResult {
        let info = try settableOption(name)
        var flags: SANE_Int = 0
        switch info.type {
        case .string:
            guard case .string(var text) = value else { throw mismatch(info, value) }
            if case .strings(let allowed) = info.constraint {
                guard let match = allowed.first(where: { $0.lowercased() == text.lowercased() }) else {
                    throw .invalidValue(option: name, reason: "\"\(text)\" is not one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
                }
                text = match
            }
            var buffer = Array(text.utf8CString)
            guard buffer.count <= info.size else {
                throw .invalidValue(option: name, reason: "\"\(text)\" is longer than \(info.size - 1) bytes")
            }
            buffer += [CChar](repeating: 0, count: info.size - buffer.count)
            flags = try control(info, SANE_ACTION_SET_VALUE, &buffer, "set \(name)")
        case .bool, .int, .fixed:
            var words = try Self.words(for: info, value)
            flags = try control(info, SANE_ACTION_SET_VALUE, &words, "set \(name)")
        case .button, .group:
            throw .invalidValue(option: name, reason: "a \(info.type) takes no value; use press(_:)")
        }
        return try settled(info, flags)
    }

    /// Lets the backend choose the value (SANE_ACTION_SET_AUTO), for options with SANE_CAP_AUTOMATIC.
    @discardableResult
    public func setAuto(_ name: String) throws(ScanError) -> SetResult {
        let info = try settableOption(name)
        guard info.capabilities.contains(.automatic) else {
            throw .invalidValue(option: name, reason: "has no automatic setting")
        }
        let flags = try control(info, SANE_ACTION_SET_AUTO, nil, "set \(name) auto")
        return try settled(info, flags)
    }

    /// Triggers a button-type option (calibrate, eject…).
    public func press(_ name: String) throws(ScanError) {
        let info = try settableOption(name)
        guard info.type == .button else { throw .invalidValue(option: name, reason: "is a \(info.type), not a button") }
        let flags = try control(info, SANE_ACTION_SET_VALUE, nil, "press \(name)")
        if flags & SANE_INFO_RELOAD_OPTIONS != 0 { cachedOptions = nil }
    }

    /// Active sensors the user sets at the device (SANE_CAP_HARD_SELECT): scan buttons, switches.
    public var buttons: [OptionInfo] { options().filter { $0.isButton && $0.isActive } }

    /// Whether a button sensor reads as pressed (a bool that is true, or a nonzero number).
    public func readButton(_ name: String) throws(ScanError) -> Bool {
        switch try get(name) {
        case .bool(let pressed): pressed
        case .int(let n): n != 0
        case .fixed(let n): n != 0
        case .string(let s): !s.isEmpty
        case .ints(let ns): ns.contains { $0 != 0 }
        case .fixeds(let ns): ns.contains { $0 != 0 }
        }
    }

    // MARK: - Plumbing

    private func readableOption(_ name: String) throws(ScanError) -> OptionInfo {
        let info = try option(name)
        guard info.isActive else { throw .optionInactive(name) }
        guard info.isReadable else { throw .optionNotReadable(name) }
        return info
    }

    private func settableOption(_ name: String) throws(ScanError) -> OptionInfo {
        let info = try option(name)
        guard info.isActive else { throw .optionInactive(name) }
        guard info.isSettable else { throw .optionNotSettable(name) }
        return info
    }

    @discardableResult
    private func control(_ info: OptionInfo, _ action: SANE_Action, _ value: UnsafeMutableRawPointer?,
                         _ step: String) throws(ScanError) -> SANE_Int {
        var flags: SANE_Int = 0
        try ScanError.check(sane.sane_control_option(handle, info.index, action, value, &flags), step)
        return flags
    }

    private func settled(_ info: OptionInfo, _ flags: SANE_Int) throws(ScanError) -> SetResult {
        if flags & SANE_INFO_RELOAD_OPTIONS != 0 { cachedOptions = nil }
        let now = try option(info.name)
        let value = now.isActive && now.isReadable ? try get(info.name) : nil
        return SetResult(
            value: value, inexact: flags & SANE_INFO_INEXACT != 0,
            reloadedOptions: flags & SANE_INFO_RELOAD_OPTIONS != 0,
            reloadParameters: flags & SANE_INFO_RELOAD_PARAMS != 0)
    }

    private func mismatch(_ info: OptionInfo, _ value: OptionValue) -> ScanError {
        .invalidValue(option: info.name, reason: "takes a \(info.type) value, not \(value)")
    }

    static func value(of info: OptionInfo, _ words: [SANE_Word]) -> OptionValue {
        switch info.type {
        case .bool: .bool(words[0] != 0)
        case .fixed: info.count == 1 ? .fixed(Fixed.unfix(words[0])) : .fixeds(words.map(Fixed.unfix))
        default: info.count == 1 ? .int(Int(words[0])) : .ints(words.map { Int($0) })
        }
    }

    static func words(for info: OptionInfo, _ value: OptionValue) throws(ScanError) -> [SANE_Word] {
        let numbers: [Double]
        switch (info.type, value) {
        case (.bool, .bool(let b)): return [b ? SANE_TRUE : SANE_FALSE]
        case (.int, .int(let n)), (.fixed, .int(let n)): numbers = [Double(n)]
        case (.int, .fixed(let n)), (.fixed, .fixed(let n)): numbers = [n]
        case (.int, .ints(let ns)), (.fixed, .ints(let ns)): numbers = ns.map(Double.init)
        case (.int, .fixeds(let ns)), (.fixed, .fixeds(let ns)): numbers = ns
        default:
            throw .invalidValue(option: info.name, reason: "takes a \(info.type) value, not \(value)")
        }
        guard numbers.count == info.count else {
            throw .invalidValue(option: info.name, reason: "takes \(info.count) value(s), got \(numbers.count)")
        }
        let limit = info.type == .fixed ? 32767.0 : Double(Int32.max)
        for n in numbers {
            guard n.isFinite, abs(n) <= limit else {
                throw .invalidValue(option: info.name, reason: "\(n) is out of range for a SANE \(info.type)")
            }
            if info.type == .int, n != n.rounded() {
                throw .invalidValue(option: info.name, reason: "takes whole numbers, not \(n)")
            }
        }
        return numbers.map { info.type == .fixed ? Fixed.fix($0) : SANE_Word($0) }
    }
}
