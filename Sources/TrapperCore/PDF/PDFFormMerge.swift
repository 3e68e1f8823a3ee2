/// Joining the interactive forms (/AcroForm, §12.7.2) of imported pages into the target's, so that
/// imported fields stay fields and render with their default resources: /Fields are concatenated,
/// /DR resources are united (the target's names win a clash), /NeedAppearances is kept if either asks.
public enum PDFFormMerge {
    /// `existing` is the target's form (nil when it has none), `resolve` looks up indirect values
    /// of the target; `added` come from the imported documents, already written to the target.
    public static func merge(_ existing: PDFDictionary?, adding added: [PDFDictionary],
                             resolve: (PDFObject) throws -> PDFObject) throws -> PDFDictionary {
        var form = existing ?? [:]
        var fields = try existing.flatMap { try $0["Fields"].map(resolve)?.arrayValue } ?? []
        var resources = try existing.flatMap { try $0["DR"].map(resolve)?.dictionaryValue } ?? [:]
        for other in added {
            fields += other["Fields"]?.arrayValue ?? []
            for (category, value) in other["DR"]?.dictionaryValue ?? [:] {
                var mine = try resources[category].map(resolve)?.dictionaryValue ?? [:]
                for (name, resource) in value.dictionaryValue ?? [:] where mine[name] == nil { mine[name] = resource }
                resources[category] = .dictionary(mine)
            }
            if form["DA"] == nil, let appearance = other["DA"] { form["DA"] = appearance }
            if other["NeedAppearances"]?.boolValue == true { form["NeedAppearances"] = true }
        }
        form["Fields"] = .array(fields)
        if !resources.isEmpty { form["DR"] = .dictionary(resources) }
        form["XFA"] = nil
        return form
    }
}
