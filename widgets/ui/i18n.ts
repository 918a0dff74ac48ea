import { lookupLocale, type LocalePolicy } from "../../lib/mcp/policy/locale";

/**
 * Every word the widgets show or send (labels, status lines, follow-up prompts), in each language
 * they speak. The host's locale picks one by RFC 4647 lookup — the same pure function the server
 * uses for its narration (lib/mcp/policy/locale.ts, no imports, so nothing else is bundled):
 * "ja-JP" → ja, "zh-CN" → zh, "en-AU" → en. Data (world and character names) is never translated.
 */

export interface Strings {
  loadingWorld: string;
  noWorld: string;
  loadingCharacter: string;
  noCharacter: string;
  loadingWorlds: string;
  noWorldsToShow: string;
  preparing: string;
  cancelled: string;
  counts(characters: number, locations: number): string;
  characters: string;
  locations: string;
  relations: string;
  relationsGraph: string;
  noCharacters: string;
  noLocations: string;
  characterName: string;
  roleOptional: string;
  addCharacter: string;
  addCharacterForm: string;
  nameFirst: string;
  adding(name: string): string;
  joined(name: string, world: string): string;
  exportWorld: string;
  exporting: string;
  exportOpened(file: string): string;
  exportNoFile: string;
  askAbout: string;
  askAboutPrompt(world: string): string;
  expand: string;
  pip: string;
  collapse: string;
  loading: string;
  /** The expanded view's load failed: the user may try once more (never retried by itself). */
  retry: string;
  edit: string;
  editName(name: string): string;
  save: string;
  cancel: string;
  traits: string;
  themeAndTone: string;
  traitsHint: string;
  backstory: string;
  saving: string;
  saved(name: string): string;
  deleteWorld: string;
  confirmDelete(name: string): string;
  confirmDeleteButton: string;
  /** delete_world refused the name the card showed: the world was renamed since. */
  renamedConfirmAgain(name: string): string;
  deleting: string;
  deleted(name: string): string;
  updatedAt(date: string): string;
  of(world: string): string;
  noBackstory: string;
  noOthers: string;
  open: string;
  openName(name: string): string;
  opening: string;
  back: string;
  developBackstory: string;
  developPrompt(name: string): string;
  yourWorlds: string;
  noWorlds: string;
  showMore: string;
  close: string;
  importWorld: string;
  importFile: string;
  importing(file: string): string;
  imported(name: string): string;
  tooLarge: string;
  toolFailed: string;
}

const en: Strings = {
  loadingWorld: "Loading world…",
  noWorld: "No world to show.",
  loadingCharacter: "Loading character…",
  noCharacter: "No character to show.",
  loadingWorlds: "Loading worlds…",
  noWorldsToShow: "No worlds to show.",
  preparing: "Preparing…",
  cancelled: "The request was cancelled.",
  counts: (c, l) => `${c} character${c === 1 ? "" : "s"} · ${l} location${l === 1 ? "" : "s"}`,
  characters: "Characters",
  locations: "Locations",
  relations: "Relations",
  relationsGraph: "Relations between characters",
  noCharacters: "No characters yet.",
  noLocations: "No locations yet.",
  characterName: "Character name",
  roleOptional: "Role (optional)",
  addCharacter: "Add character",
  addCharacterForm: "Add a character",
  nameFirst: "Give the character a name first.",
  adding: (name) => `Adding ${name}…`,
  joined: (name, world) => `${name} joined ${world}.`,
  exportWorld: "Export",
  exporting: "Exporting…",
  exportOpened: (file) => `Opened ${file}.`,
  exportNoFile: "The export has no file to open.",
  askAbout: "Ask about it",
  askAboutPrompt: (world) => `Tell me more about the world "${world}".`,
  expand: "Expand",
  pip: "Picture in picture",
  collapse: "Collapse",
  loading: "Loading…",
  retry: "Try again",
  edit: "Edit",
  editName: (name) => `Edit ${name}`,
  save: "Save",
  cancel: "Cancel",
  traits: "Traits",
  themeAndTone: "Theme and tone",
  traitsHint: "Traits, one per line",
  backstory: "Backstory",
  saving: "Saving…",
  saved: (name) => `Saved ${name}.`,
  deleteWorld: "Delete world",
  confirmDelete: (name) => `Delete "${name}" with all its characters and locations? This cannot be undone.`,
  confirmDeleteButton: "Delete for good",
  renamedConfirmAgain: (name) => `Not deleted: the world is now called "${name}". Confirm again to delete it.`,
  deleting: "Deleting…",
  deleted: (name) => `Deleted "${name}".`,
  updatedAt: (date) => `Updated ${date}`,
  of: (world) => `of ${world}`,
  noBackstory: "No backstory yet.",
  noOthers: "No one else in this world yet.",
  open: "Open",
  openName: (name) => `Open ${name}`,
  opening: "Opening…",
  back: "Back",
  developBackstory: "Develop backstory",
  developPrompt: (name) => `Develop ${name}'s backstory further.`,
  yourWorlds: "Your worlds",
  noWorlds: "No worlds yet. Ask to create one.",
  showMore: "Show more",
  close: "Close",
  importWorld: "Import",
  importFile: "World file (Markdown or JSON)",
  importing: (file) => `Importing ${file}…`,
  imported: (name) => `Imported "${name}".`,
  tooLarge: "That file is too large (1 MB at most).",
  toolFailed: "The tool failed.",
};

/** British English: the same words but for the few spelt differently; dates differ through Intl. */
const enGB: Partial<Strings> = {
  askAboutPrompt: (world) => `Tell me more about the world ‘${world}’.`,
  confirmDelete: (name) => `Delete ‘${name}’ with all its characters and locations? This cannot be undone.`,
  deleted: (name) => `Deleted ‘${name}’.`,
  renamedConfirmAgain: (name) => `Not deleted: the world is now called ‘${name}’. Confirm again to delete it.`,
  imported: (name) => `Imported ‘${name}’.`,
};

const fr: Strings = {
  loadingWorld: "Chargement du monde…",
  noWorld: "Aucun monde à afficher.",
  loadingCharacter: "Chargement du personnage…",
  noCharacter: "Aucun personnage à afficher.",
  loadingWorlds: "Chargement des mondes…",
  noWorldsToShow: "Aucun monde à afficher.",
  preparing: "Préparation…",
  cancelled: "La demande a été annulée.",
  counts: (c, l) => `${c} personnage${c > 1 ? "s" : ""} · ${l} lieu${l > 1 ? "x" : ""}`,
  characters: "Personnages",
  locations: "Lieux",
  relations: "Relations",
  relationsGraph: "Relations entre les personnages",
  noCharacters: "Aucun personnage pour l'instant.",
  noLocations: "Aucun lieu pour l'instant.",
  characterName: "Nom du personnage",
  roleOptional: "Rôle (facultatif)",
  addCharacter: "Ajouter le personnage",
  addCharacterForm: "Ajouter un personnage",
  nameFirst: "Donnez d'abord un nom au personnage.",
  adding: (name) => `Ajout de ${name}…`,
  joined: (name, world) => `${name} a rejoint ${world}.`,
  exportWorld: "Exporter",
  exporting: "Export…",
  exportOpened: (file) => `${file} ouvert.`,
  exportNoFile: "L'export n'a aucun fichier à ouvrir.",
  askAbout: "En savoir plus",
  askAboutPrompt: (world) => `Parle-moi davantage du monde « ${world} ».`,
  expand: "Agrandir",
  pip: "Incrustation",
  collapse: "Réduire",
  loading: "Chargement…",
  retry: "Réessayer",
  edit: "Modifier",
  editName: (name) => `Modifier ${name}`,
  save: "Enregistrer",
  cancel: "Annuler",
  traits: "Traits",
  themeAndTone: "Thème et ton",
  traitsHint: "Traits, un par ligne",
  backstory: "Histoire",
  saving: "Enregistrement…",
  saved: (name) => `${name} enregistré.`,
  deleteWorld: "Supprimer le monde",
  confirmDelete: (name) => `Supprimer « ${name} » avec tous ses personnages et lieux ? C'est irréversible.`,
  confirmDeleteButton: "Supprimer définitivement",
  renamedConfirmAgain: (name) => `Non supprimé : le monde s'appelle désormais « ${name} ». Confirmez à nouveau pour le supprimer.`,
  deleting: "Suppression…",
  deleted: (name) => `« ${name} » supprimé.`,
  updatedAt: (date) => `Mis à jour le ${date}`,
  of: (world) => `de ${world}`,
  noBackstory: "Pas encore d'histoire.",
  noOthers: "Personne d'autre dans ce monde pour l'instant.",
  open: "Ouvrir",
  openName: (name) => `Ouvrir ${name}`,
  opening: "Ouverture…",
  back: "Retour",
  developBackstory: "Développer l'histoire",
  developPrompt: (name) => `Développe davantage l'histoire de ${name}.`,
  yourWorlds: "Vos mondes",
  noWorlds: "Aucun monde pour l'instant. Demandez-en un.",
  showMore: "Afficher plus",
  close: "Fermer",
  importWorld: "Importer",
  importFile: "Fichier de monde (Markdown ou JSON)",
  importing: (file) => `Import de ${file}…`,
  imported: (name) => `« ${name} » importé.`,
  tooLarge: "Ce fichier est trop volumineux (1 Mo au plus).",
  toolFailed: "L'outil a échoué.",
};

const es: Strings = {
  loadingWorld: "Cargando el mundo…",
  noWorld: "No hay ningún mundo que mostrar.",
  loadingCharacter: "Cargando el personaje…",
  noCharacter: "No hay ningún personaje que mostrar.",
  loadingWorlds: "Cargando mundos…",
  noWorldsToShow: "No hay mundos que mostrar.",
  preparing: "Preparando…",
  cancelled: "La solicitud se canceló.",
  counts: (c, l) => `${c} personaje${c === 1 ? "" : "s"} · ${l} lugar${l === 1 ? "" : "es"}`,
  characters: "Personajes",
  locations: "Lugares",
  relations: "Relaciones",
  relationsGraph: "Relaciones entre personajes",
  noCharacters: "Todavía no hay personajes.",
  noLocations: "Todavía no hay lugares.",
  characterName: "Nombre del personaje",
  roleOptional: "Papel (opcional)",
  addCharacter: "Añadir personaje",
  addCharacterForm: "Añadir un personaje",
  nameFirst: "Primero dale un nombre al personaje.",
  adding: (name) => `Añadiendo a ${name}…`,
  joined: (name, world) => `${name} se unió a ${world}.`,
  exportWorld: "Exportar",
  exporting: "Exportando…",
  exportOpened: (file) => `Se abrió ${file}.`,
  exportNoFile: "La exportación no tiene ningún archivo que abrir.",
  askAbout: "Preguntar más",
  askAboutPrompt: (world) => `Cuéntame más sobre el mundo «${world}».`,
  expand: "Ampliar",
  pip: "Imagen en imagen",
  collapse: "Contraer",
  loading: "Cargando…",
  retry: "Reintentar",
  edit: "Editar",
  editName: (name) => `Editar a ${name}`,
  save: "Guardar",
  cancel: "Cancelar",
  traits: "Rasgos",
  themeAndTone: "Tema y tono",
  traitsHint: "Rasgos, uno por línea",
  backstory: "Historia",
  saving: "Guardando…",
  saved: (name) => `${name} guardado.`,
  deleteWorld: "Eliminar mundo",
  confirmDelete: (name) => `¿Eliminar «${name}» con todos sus personajes y lugares? No se puede deshacer.`,
  confirmDeleteButton: "Eliminar para siempre",
  renamedConfirmAgain: (name) => `No se eliminó: el mundo ahora se llama «${name}». Confirma de nuevo para eliminarlo.`,
  deleting: "Eliminando…",
  deleted: (name) => `Se eliminó «${name}».`,
  updatedAt: (date) => `Actualizado el ${date}`,
  of: (world) => `de ${world}`,
  noBackstory: "Todavía no tiene historia.",
  noOthers: "Todavía no hay nadie más en este mundo.",
  open: "Abrir",
  openName: (name) => `Abrir a ${name}`,
  opening: "Abriendo…",
  back: "Volver",
  developBackstory: "Desarrollar historia",
  developPrompt: (name) => `Desarrolla más la historia de ${name}.`,
  yourWorlds: "Tus mundos",
  noWorlds: "Todavía no hay mundos. Pide que se cree uno.",
  showMore: "Mostrar más",
  close: "Cerrar",
  importWorld: "Importar",
  importFile: "Archivo de mundo (Markdown o JSON)",
  importing: (file) => `Importando ${file}…`,
  imported: (name) => `Se importó «${name}».`,
  tooLarge: "El archivo es demasiado grande (1 MB como máximo).",
  toolFailed: "La herramienta falló.",
};

const ja: Strings = {
  loadingWorld: "世界を読み込み中…",
  noWorld: "表示する世界がありません。",
  loadingCharacter: "キャラクターを読み込み中…",
  noCharacter: "表示するキャラクターがありません。",
  loadingWorlds: "世界を読み込み中…",
  noWorldsToShow: "表示する世界がありません。",
  preparing: "準備中…",
  cancelled: "リクエストはキャンセルされました。",
  counts: (c, l) => `キャラクター ${c} 人 · 場所 ${l} 件`,
  characters: "キャラクター",
  locations: "場所",
  relations: "関係",
  relationsGraph: "キャラクター同士の関係",
  noCharacters: "まだキャラクターがいません。",
  noLocations: "まだ場所がありません。",
  characterName: "キャラクター名",
  roleOptional: "役割（任意）",
  addCharacter: "キャラクターを追加",
  addCharacterForm: "キャラクターを追加する",
  nameFirst: "先にキャラクターの名前を入力してください。",
  adding: (name) => `${name} を追加中…`,
  joined: (name, world) => `${name} が ${world} に加わりました。`,
  exportWorld: "エクスポート",
  exporting: "エクスポート中…",
  exportOpened: (file) => `${file} を開きました。`,
  exportNoFile: "エクスポートに開けるファイルがありません。",
  askAbout: "詳しく聞く",
  askAboutPrompt: (world) => `世界「${world}」についてもっと教えてください。`,
  expand: "拡大",
  pip: "ピクチャー・イン・ピクチャー",
  collapse: "縮小",
  loading: "読み込み中…",
  retry: "再試行",
  edit: "編集",
  editName: (name) => `${name} を編集`,
  save: "保存",
  cancel: "キャンセル",
  traits: "特徴",
  themeAndTone: "テーマと雰囲気",
  traitsHint: "特徴（1 行に 1 つ）",
  backstory: "経歴",
  saving: "保存中…",
  saved: (name) => `${name} を保存しました。`,
  deleteWorld: "世界を削除",
  confirmDelete: (name) => `「${name}」をすべてのキャラクターと場所ごと削除しますか？元に戻せません。`,
  confirmDeleteButton: "完全に削除",
  renamedConfirmAgain: (name) => `削除していません。世界の名前は「${name}」に変わっています。削除するにはもう一度確認してください。`,
  deleting: "削除中…",
  deleted: (name) => `「${name}」を削除しました。`,
  updatedAt: (date) => `更新日時 ${date}`,
  of: (world) => `（${world}）`,
  noBackstory: "経歴はまだありません。",
  noOthers: "この世界にはまだ他に誰もいません。",
  open: "開く",
  openName: (name) => `${name} を開く`,
  opening: "開いています…",
  back: "戻る",
  developBackstory: "経歴を深める",
  developPrompt: (name) => `${name} の経歴をさらに深めてください。`,
  yourWorlds: "あなたの世界",
  noWorlds: "まだ世界がありません。作成を依頼してください。",
  showMore: "さらに表示",
  close: "閉じる",
  importWorld: "インポート",
  importFile: "世界ファイル（Markdown または JSON）",
  importing: (file) => `${file} をインポート中…`,
  imported: (name) => `「${name}」をインポートしました。`,
  tooLarge: "ファイルが大きすぎます（最大 1 MB）。",
  toolFailed: "ツールが失敗しました。",
};

const ko: Strings = {
  loadingWorld: "세계를 불러오는 중…",
  noWorld: "표시할 세계가 없습니다.",
  loadingCharacter: "캐릭터를 불러오는 중…",
  noCharacter: "표시할 캐릭터가 없습니다.",
  loadingWorlds: "세계 목록을 불러오는 중…",
  noWorldsToShow: "표시할 세계가 없습니다.",
  preparing: "준비 중…",
  cancelled: "요청이 취소되었습니다.",
  counts: (c, l) => `캐릭터 ${c}명 · 장소 ${l}곳`,
  characters: "캐릭터",
  locations: "장소",
  relations: "관계",
  relationsGraph: "캐릭터 사이의 관계",
  noCharacters: "아직 캐릭터가 없습니다.",
  noLocations: "아직 장소가 없습니다.",
  characterName: "캐릭터 이름",
  roleOptional: "역할 (선택)",
  addCharacter: "캐릭터 추가",
  addCharacterForm: "캐릭터 추가하기",
  nameFirst: "먼저 캐릭터 이름을 입력하세요.",
  adding: (name) => `${name} 추가 중…`,
  joined: (name, world) => `${name}이(가) ${world}에 합류했습니다.`,
  exportWorld: "내보내기",
  exporting: "내보내는 중…",
  exportOpened: (file) => `${file}을(를) 열었습니다.`,
  exportNoFile: "내보내기에 열 파일이 없습니다.",
  askAbout: "더 물어보기",
  askAboutPrompt: (world) => `"${world}" 세계에 대해 더 알려 주세요.`,
  expand: "확대",
  pip: "화면 속 화면",
  collapse: "축소",
  loading: "불러오는 중…",
  retry: "다시 시도",
  edit: "편집",
  editName: (name) => `${name} 편집`,
  save: "저장",
  cancel: "취소",
  traits: "특성",
  themeAndTone: "테마와 분위기",
  traitsHint: "특성 (한 줄에 하나씩)",
  backstory: "배경 이야기",
  saving: "저장 중…",
  saved: (name) => `${name}을(를) 저장했습니다.`,
  deleteWorld: "세계 삭제",
  confirmDelete: (name) => `"${name}"을(를) 모든 캐릭터와 장소와 함께 삭제할까요? 되돌릴 수 없습니다.`,
  confirmDeleteButton: "영구 삭제",
  renamedConfirmAgain: (name) => `삭제하지 않았습니다. 세계 이름이 "${name}"(으)로 바뀌었습니다. 삭제하려면 다시 확인하세요.`,
  deleting: "삭제 중…",
  deleted: (name) => `"${name}"을(를) 삭제했습니다.`,
  updatedAt: (date) => `업데이트: ${date}`,
  of: (world) => `(${world})`,
  noBackstory: "아직 배경 이야기가 없습니다.",
  noOthers: "이 세계에는 아직 다른 사람이 없습니다.",
  open: "열기",
  openName: (name) => `${name} 열기`,
  opening: "여는 중…",
  back: "뒤로",
  developBackstory: "배경 이야기 발전시키기",
  developPrompt: (name) => `${name}의 배경 이야기를 더 발전시켜 주세요.`,
  yourWorlds: "내 세계",
  noWorlds: "아직 세계가 없습니다. 만들어 달라고 요청하세요.",
  showMore: "더 보기",
  close: "닫기",
  importWorld: "가져오기",
  importFile: "세계 파일 (Markdown 또는 JSON)",
  importing: (file) => `${file} 가져오는 중…`,
  imported: (name) => `"${name}"을(를) 가져왔습니다.`,
  tooLarge: "파일이 너무 큽니다 (최대 1MB).",
  toolFailed: "도구가 실패했습니다.",
};

const zh: Strings = {
  loadingWorld: "正在加载世界…",
  noWorld: "没有可显示的世界。",
  loadingCharacter: "正在加载角色…",
  noCharacter: "没有可显示的角色。",
  loadingWorlds: "正在加载世界列表…",
  noWorldsToShow: "没有可显示的世界。",
  preparing: "正在准备…",
  cancelled: "请求已取消。",
  counts: (c, l) => `${c} 个角色 · ${l} 个地点`,
  characters: "角色",
  locations: "地点",
  relations: "关系",
  relationsGraph: "角色之间的关系",
  noCharacters: "还没有角色。",
  noLocations: "还没有地点。",
  characterName: "角色名称",
  roleOptional: "身份（可选）",
  addCharacter: "添加角色",
  addCharacterForm: "添加一个角色",
  nameFirst: "请先为角色取个名字。",
  adding: (name) => `正在添加 ${name}…`,
  joined: (name, world) => `${name} 加入了 ${world}。`,
  exportWorld: "导出",
  exporting: "正在导出…",
  exportOpened: (file) => `已打开 ${file}。`,
  exportNoFile: "导出结果中没有可打开的文件。",
  askAbout: "进一步了解",
  askAboutPrompt: (world) => `请再多介绍一下世界“${world}”。`,
  expand: "展开",
  pip: "画中画",
  collapse: "收起",
  loading: "正在加载…",
  retry: "重试",
  edit: "编辑",
  editName: (name) => `编辑 ${name}`,
  save: "保存",
  cancel: "取消",
  traits: "特点",
  themeAndTone: "主题与基调",
  traitsHint: "特点，每行一个",
  backstory: "背景故事",
  saving: "正在保存…",
  saved: (name) => `已保存 ${name}。`,
  deleteWorld: "删除世界",
  confirmDelete: (name) => `要删除“${name}”及其所有角色和地点吗？此操作无法撤销。`,
  confirmDeleteButton: "永久删除",
  renamedConfirmAgain: (name) => `未删除：该世界现在名为“${name}”。请再次确认以删除。`,
  deleting: "正在删除…",
  deleted: (name) => `已删除“${name}”。`,
  updatedAt: (date) => `更新于 ${date}`,
  of: (world) => `（${world}）`,
  noBackstory: "还没有背景故事。",
  noOthers: "这个世界里还没有其他人。",
  open: "打开",
  openName: (name) => `打开 ${name}`,
  opening: "正在打开…",
  back: "返回",
  developBackstory: "丰富背景故事",
  developPrompt: (name) => `请进一步丰富 ${name} 的背景故事。`,
  yourWorlds: "你的世界",
  noWorlds: "还没有世界。请让我创建一个。",
  showMore: "显示更多",
  close: "关闭",
  importWorld: "导入",
  importFile: "世界文件（Markdown 或 JSON）",
  importing: (file) => `正在导入 ${file}…`,
  imported: (name) => `已导入“${name}”。`,
  tooLarge: "文件太大（最多 1 MB）。",
  toolFailed: "工具执行失败。",
};

const TABLE: Readonly<Record<string, Partial<Strings>>> = { en, "en-GB": enGB, fr, es, ja, ko, zh };

/** The widget languages; "zh" is Simplified Chinese (zh-CN), what lookup gives every zh-* tag. */
export const WIDGET_LOCALES: LocalePolicy = { supported: Object.keys(TABLE), fallback: "en" };

/** The strings for a host locale (BCP 47, or an Accept-Language list): a regional table over its language's. */
export function stringsFor(locale: string): Strings {
  const tag = lookupLocale(locale, WIDGET_LOCALES);
  return { ...en, ...TABLE[tag] };
}

/** A date in the host's locale and, when the host gives one, the user's timezone. */
export function formatDate(iso: string, locale: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const options: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeStyle: "short" };
  try {
    return new Intl.DateTimeFormat(locale, timeZone ? { ...options, timeZone } : options).format(date);
  } catch {
    // An unknown timezone or a malformed locale tag: the browser's own.
    return new Intl.DateTimeFormat(undefined, options).format(date);
  }
}
